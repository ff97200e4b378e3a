"""Fails if compiler/ or simulator/ includes Qt headers or links Qt (the engine stays Qt-free)."""
import pathlib
import re
import sys

QT_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](Qt\w*/|Q[A-Z]\w*(\.h)?[>"])', re.M)
QT_LINK = re.compile(r"Qt[56]?::|libQt[56]|Qt[56]\w*\.so")


def check_sources(root):
    bad = []
    for folder in ("compiler", "simulator"):
        for path in (root / folder).rglob("*"):
            if path.suffix in {".h", ".hpp", ".cpp", ".cc", ".inc", ".td"} and QT_INCLUDE.search(path.read_text()):
                bad.append(str(path.relative_to(root)))
    for b in bad:
        print("Qt include in the engine:", b)
    print(f"checked compiler/ and simulator/ sources: {len(bad)} Qt includes")
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
    ok = check_sources(pathlib.Path(sys.argv[2])) if sys.argv[1] == "sources" else check_links(sys.argv[2], sys.argv[3])
    sys.exit(0 if ok else 1)
