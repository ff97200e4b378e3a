"""Every verifier message of the dialects must be exercised by a test (STYLE.md point 4): errors.mlir
files for op verifiers, the pass tests for shape inference."""
import pathlib
import re
import sys

src_root, test_root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
# Verifier sources; runtime diagnostics (weight files, folds) are tested by the pass tests instead.
sources = [src_root / "compiler/lib/Dialect/Top/TopOps.cpp", src_root / "compiler/lib/Dialect/Top/TopShapes.cpp",
           src_root / "compiler/lib/Dialect/Top/TopLLMOps.cpp", src_root / "compiler/lib/Dialect/Top/TopControl.cpp",
           src_root / "compiler/lib/Dialect/Tpu/TpuOps.cpp"]
# Internal invariants that valid ODS cannot reach.
unreachable = {" results but its shape rule gives ",
               # a region op's shapes are checked and inferred once its operands and yields have shapes
               "a yielded value has no static shape yet", "a carried value has no static shape yet"}
tests = "".join(p.read_text() for p in test_root.rglob("*.mlir"))
tests = tests.replace("''", "'")
missing = []
for source in sources:
    text = source.read_text()
    for match in re.finditer(r"emitOpError\(\)\s*<<\s*(.*?);", text, re.S):
        literals = re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(1))
        if not literals:
            continue
        fragment = max(literals, key=len).replace("\\'", "'")
        if fragment not in tests and fragment not in unreachable:
            missing.append(f"{source.name}: {fragment!r}")
for m in missing:
    print("untested verifier message:", m)
print(f"{len(missing)} untested verifier messages")
sys.exit(1 if missing else 0)
