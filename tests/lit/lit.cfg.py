# lit configuration: FileCheck tests for passes (tpuc-opt) and end-to-end CLI tests (tpuc).
import os
import lit.formats

config.name = "TPUStudio"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tpuc_obj_root, "tests", "lit")

# Tools under test come first on PATH, then LLVM 22's FileCheck/not/count (never the unversioned LLVM 14 ones).
config.environment["PATH"] = os.pathsep.join(
    [config.tpuc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.environment["OPENBLAS_NUM_THREADS"] = "2"
for var in ("HOME", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TPUC_ASSETS", "TPUC_ASSETS_DIR", "TPUC_ONNXRUNTIME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Debian's python (numpy, onnx) rather than whatever python3 is first on PATH.
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
