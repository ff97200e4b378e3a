"""Layering rules. `sources`/`links`: compiler/ and simulator/ include and link no Qt (the engine stays
Qt-free). `opnames`: no code outside tests dispatches on an op's name string (ops are asked through their
class or an interface: tpu::BackendInterface, tpu::KernelInterface, top::InferenceInterface)."""
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
PRINTERS = {"compiler/lib/Graph/GraphLayout.cpp", "compiler/lib/Graph/GraphSynthetic.cpp"}


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


ERROR_OUT_PARAM = re.compile(r"std::string\s*[&*]\s*(error|err|message)\b")


def check_error_params(root, allowed):
    """The error rule (docs/ARCHITECTURE.md, Errors): no new `std::string &error` out-parameters in
    public headers; the remaining ones are being converted, so their number may only fall."""
    found = []
    for folder in ("compiler/include", "simulator/include", "driver", "app", "ui", "visualizer"):
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


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "sources":
        ok = check_sources(pathlib.Path(sys.argv[2]))
    elif mode == "opnames":
        ok = check_op_names(pathlib.Path(sys.argv[2]))
    elif mode == "errorparams":
        ok = check_error_params(pathlib.Path(sys.argv[2]), int(sys.argv[3]))
    else:
        ok = check_links(sys.argv[2], sys.argv[3])
    sys.exit(0 if ok else 1)
