"""The layering rules.

sources / links: compiler/, simulator/, driver/, dataset/ and project/ include no Qt header and link no Qt (the
engine and its contract stay Qt-free); driver/ (but driver/engine, TpucDriver) includes no MLIR or LLVM either (the
studio links it); dataset/ (which the studio calls in-process) no MLIR (LLVM's Support, for llvm::Expected, is fine).
contract: the studio reaches the engine only through its engine client (ui/jobs/EngineClient.*, with its
JobQueue): no other file under ui/ holds a tpuc flag as a string literal ("--chip", "--chip=...") or uses
QProcess; and no file under ui/ or app/ hard-codes a chip name ("bm1684x"): chips are the profiles in
resources/chips (driver::listChips). The flags are read from the flag bindings themselves (driver/lib and
app/), the chips from resources/chips, so neither list is kept by hand here.
opnames: no code outside tests dispatches on an op's name string (ops are asked through their class or an
interface: tpu::BackendInterface, tpu::KernelInterface, top::InferenceInterface).
errorparams: std::string error out-parameters in headers may only become fewer (docs/ARCHITECTURE.md).
"""
import pathlib
import re
import sys

QT_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](Qt\w*/|Q[A-Z]\w*(\.h)?[>"])', re.M)
QT_LINK = re.compile(r"Qt[56]?::|libQt[56]|Qt[56]\w*\.so")


MLIR_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](mlir|llvm)/', re.M)
MLIR_ONLY_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]mlir/', re.M)
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".inc", ".td"}


def check_sources(root):
    bad = []
    for folder in ("compiler", "simulator", "driver", "dataset", "project"):
        for path in (root / folder).rglob("*"):
            if path.suffix in SOURCE_SUFFIXES and QT_INCLUDE.search(path.read_text()):
                bad.append(str(path.relative_to(root)))
    for b in bad:
        print("Qt include in the engine:", b)
    # driver/engine (TpucDriver) runs the engine and may use MLIR; the contract beside it may not.
    engine = root / "driver" / "engine"
    mlir = [str(p.relative_to(root)) for p in (root / "driver").rglob("*")
            if p.suffix in SOURCE_SUFFIXES and engine not in p.parents and MLIR_INCLUDE.search(p.read_text())]
    for b in mlir:
        print("MLIR/LLVM include in the studio<->engine contract:", b)
    dataset = [str(p.relative_to(root)) for p in (root / "dataset").rglob("*")
               if p.suffix in SOURCE_SUFFIXES and MLIR_ONLY_INCLUDE.search(p.read_text())]
    for b in dataset:
        print("MLIR include in the dataset library:", b)
    print(f"checked compiler/, simulator/, driver/, dataset/ and project/ sources: {len(bad)} Qt includes, "
          f"{len(mlir)} MLIR includes in driver/, {len(dataset)} in dataset/")
    return not bad and not mlir and not dataset


# A C++ string literal (no raw strings in these folders); group 1 is its text.
STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# The names of one binding: `{{"--chip", "--processor"}, ...` or `{{"-o", "--output"}, ...`.
BINDING_NAMES = re.compile(r'\{\{\s*("-[^"]*"(?:\s*,\s*"-[^"]*")*)\s*\}')
CLIENT_FILES = {"ui/jobs/EngineClient.h", "ui/jobs/EngineClient.cpp"}
PROCESS_FILES = CLIENT_FILES | {"ui/jobs/JobQueue.h", "ui/jobs/JobQueue.cpp"}


def tpuc_flags(root):
    """Every long flag bound by an ArgParser binding of tpuc: the requests (driver/lib) and app/ (tpuc, and
    tpuc-view behind `tpuc view`)."""
    flags = set()
    for folder in ("driver/lib", "app/tpuc", "app/tpuc-view"):
        for path in (root / folder).rglob("*.cpp"):
            for names in BINDING_NAMES.findall(path.read_text()):
                flags.update(n for n in re.findall(r'"(--[^"]+)"', names))
    return flags


def chip_names(root):
    return {p.stem.lower() for p in (root / "resources/chips").glob("*.json")}


def literals(path):
    """(line, text) of every string literal outside comments."""
    text = path.read_text()
    # Blank out comments, keeping line numbers.
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for m in STRING_LITERAL.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def check_contract(root):
    flags, chips = tpuc_flags(root), chip_names(root)
    # The lists come from the sources: an empty one would make the check pass vacuously.
    if len(flags) < 50 or not {"--chip", "--mlir", "--tolerance"} <= flags:
        print(f"found only {len(flags)} tpuc flags in the bindings: is the binding source moved?")
        return False
    if not chips:
        print("no chip profile in resources/chips")
        return False
    bad = []
    for folder in ("ui", "app"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES:
                continue
            rel = str(path.relative_to(root))
            for line, text in literals(path):
                if folder == "ui" and rel not in CLIENT_FILES and (text in flags or text.split("=", 1)[0] in flags and "=" in text):
                    bad.append(f"{rel}:{line}: tpuc flag \"{text}\" outside the engine client (build a request, toArgv)")
                if text.lower() in chips:
                    bad.append(f"{rel}:{line}: chip name \"{text}\" (chips come from resources/chips: driver::listChips)")
            if folder == "ui" and rel not in PROCESS_FILES:
                for number, source in enumerate(path.read_text().splitlines(), 1):
                    if re.search(r"\bQProcess\b", source.split("//", 1)[0]):
                        bad.append(f"{rel}:{number}: QProcess outside the engine client (use EngineClient)")
    for b in bad:
        print(b)
    print(f"checked ui/ and app/ against {len(flags)} tpuc flags and {len(chips)} chips: {len(bad)} violations")
    return not bad


def check_links(links_file, ninja_file):
    lines = pathlib.Path(links_file).read_text().splitlines()
    targets = {line.split(":", 1)[0]: line.split(":", 1)[1] for line in lines if ":" in line}
    bad = [t for t, libs in targets.items() if QT_LINK.search(libs)]
    # The final link lines hold the whole closure (also libraries pulled in transitively).
    ninja = pathlib.Path(ninja_file).read_text()
    for target in targets:
        # Only the statements that build the target (it is among the outputs, before the ':'); a GUI
        # executable that merely waits for an engine tool (order-only inputs) is not the tool linking Qt.
        for block in re.findall(r"^build [^:\n]*\b" + re.escape(target) + r"\b[^:\n]*:[^\n]*\n(?:  [^\n]*\n)*", ninja, re.M):
            if re.search(r"LINK_LIBRARIES = [^\n]*" + QT_LINK.pattern, block):
                bad.append(target + " (link line)")
    for b in bad:
        print("engine target links Qt:", b)
    print(f"checked {len(targets)} engine targets: {len(bad)} link Qt")
    return bool(targets) and not bad


# An op name compared as a string: `name == "tpu.cast"`, `getStringRef() == ...`, `stripDialect() != ...`,
# `starts_with("top.")`, or a list of op names to look names up in.
OP_NAME_COMPARE = re.compile(
    r'(==|!=)\s*"(tpu|top)\.[a-z_0-9]+"|"(tpu|top)\.[a-z_0-9]+"\s*(==|!=)'
    r'|(getStringRef|stripDialect)\(\)\s*(==|!=)|(starts_with|ends_with|contains)\("(tpu|top)\.'
    r'|\{\s*"(tpu|top)\.[a-z_0-9]+",\s*"(tpu|top)\.'
    r'|\b(mnemonic|kindName|tpuName)\s*(==|!=)\s*"')
# Attribute names that share the dialect prefix (tpu.group, ...) are not op names.
ATTRIBUTE_NAME = re.compile(r'\b(an|attrName|attribute)\s*==\s*"tpu\.')
# Not dispatch: the graph view labels plain-data nodes by their op kind text; the synthetic graphs of the
# layout benchmark are made of such nodes.
PRINTERS = {"compiler/lib/GraphData/GraphLayout.cpp", "compiler/lib/GraphData/GraphSynthetic.cpp"}


def check_op_names(root):
    bad = []
    for folder in ("compiler", "simulator", "app", "ui", "visualizer", "bench"):
        for path in sorted((root / folder).rglob("*")):
            rel = str(path.relative_to(root))
            if path.suffix not in {".h", ".cpp"} or rel in PRINTERS:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("//", 1)[0]
                if OP_NAME_COMPARE.search(code) and not ATTRIBUTE_NAME.search(code):
                    bad.append(f"{rel}:{number}: {line.strip()}")
    for b in bad:
        print("op name compared as a string:", b)
    print(f"checked sources outside tests: {len(bad)} op-name string comparisons")
    return not bad


# A parameter, not an accessor: Result's `const std::string &error() const` is how the rule is kept.
ERROR_OUT_PARAM = re.compile(r"std::string\s*[&*]\s*(error|err|message)\b(?!\s*\()")


def check_error_params(root, allowed):
    """The error rule (docs/ARCHITECTURE.md, Errors): no new `std::string &error` out-parameters in
    public headers; the remaining ones are being converted, so their number may only fall."""
    found = []
    for folder in ("compiler/include", "simulator/include", "driver", "app", "project", "ui", "visualizer"):
        base = root / folder
        if not base.exists():
            continue
        for path in sorted(base.rglob("*.h")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if ERROR_OUT_PARAM.search(line.split("//", 1)[0]):
                    found.append(f"{path.relative_to(root)}:{number}")
    print(f"std::string error out-parameters in headers: {len(found)} (allowed at most {allowed})")
    if len(found) > allowed:
        for f in found:
            print("  ", f)
    return len(found) <= allowed


# Issue 25: children are started from an argument vector, never through a shell (a model or dataset path with a
# quote, a space or `$(...)` must stay a path). Flags any C/C++ shell entry point in the product's sources.
SHELL_CALL = re.compile(r'\b(system|popen|execl|execlp|wordexp)\s*\(|startCommand\s*\(|"/bin/(ba)?sh"|"sh",\s*"-c"|'
                        r'"(ba)?sh"\s*,\s*\{?\s*"-c"')


def check_no_shell(root):
    bad = []
    for folder in ("compiler", "simulator", "driver", "dataset", "project", "app", "ui", "visualizer"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in {".h", ".cpp"}:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if SHELL_CALL.search(line.split("//", 1)[0]):
                    bad.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    for b in bad:
        print("a shell starts a child:", b)
    print(f"checked the product's sources: {len(bad)} shell calls")
    return not bad


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "sources":
        ok = check_sources(pathlib.Path(sys.argv[2]))
    elif mode == "contract":
        ok = check_contract(pathlib.Path(sys.argv[2]))
    elif mode == "noshell":
        ok = check_no_shell(pathlib.Path(sys.argv[2]))
    elif mode == "opnames":
        ok = check_op_names(pathlib.Path(sys.argv[2]))
    elif mode == "errorparams":
        ok = check_error_params(pathlib.Path(sys.argv[2]), int(sys.argv[3]))
    else:
        ok = check_links(sys.argv[2], sys.argv[3])
    sys.exit(0 if ok else 1)
