"""The layering rules.

sources / links: compiler/, simulator/ and driver/ include no Qt header and link no Qt (the engine and its
contract stay Qt-free); driver/ includes no MLIR or LLVM either (the studio links it).
contract: the studio reaches the engine only through its engine client (ui/jobs/EngineClient.*, with its
JobQueue): no other file under ui/ holds a tpuc flag as a string literal ("--chip", "--chip=...") or uses
QProcess; and no file under ui/ or app/ hard-codes a chip name ("bm1684x"): chips are the profiles in
resources/chips (driver::listChips). The flags are read from the flag bindings themselves (driver/lib and
app/), the chips from resources/chips, so neither list is kept by hand here.
"""
import pathlib
import re
import sys

QT_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](Qt\w*/|Q[A-Z]\w*(\.h)?[>"])', re.M)
QT_LINK = re.compile(r"Qt[56]?::|libQt[56]|Qt[56]\w*\.so")


MLIR_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](mlir|llvm)/', re.M)
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".inc", ".td"}


def check_sources(root):
    bad = []
    for folder in ("compiler", "simulator", "driver"):
        for path in (root / folder).rglob("*"):
            if path.suffix in SOURCE_SUFFIXES and QT_INCLUDE.search(path.read_text()):
                bad.append(str(path.relative_to(root)))
    for b in bad:
        print("Qt include in the engine:", b)
    mlir = [str(p.relative_to(root)) for p in (root / "driver").rglob("*")
            if p.suffix in SOURCE_SUFFIXES and MLIR_INCLUDE.search(p.read_text())]
    for b in mlir:
        print("MLIR/LLVM include in the studio<->engine contract:", b)
    print(f"checked compiler/, simulator/ and driver/ sources: {len(bad)} Qt includes, {len(mlir)} MLIR includes in driver/")
    return not bad and not mlir


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


if __name__ == "__main__":
    if sys.argv[1] == "sources":
        ok = check_sources(pathlib.Path(sys.argv[2]))
    elif sys.argv[1] == "contract":
        ok = check_contract(pathlib.Path(sys.argv[2]))
    else:
        ok = check_links(sys.argv[2], sys.argv[3])
    sys.exit(0 if ok else 1)
