"""print -> parse -> print over every valid IR snippet of the suite: custom and generic forms are fixed points.

Files are split at `// -----` like --split-input-file; snippets that expect diagnostics are skipped."""
import pathlib
import subprocess
import sys

root = pathlib.Path(sys.argv[1])
snippets = []
for path in sorted(root.rglob("*.mlir")):
    if "Inputs" in path.parts:
        continue
    for index, chunk in enumerate(path.read_text().split("// -----")):
        if "expected-" not in chunk and ("func.func" in chunk or "module" in chunk):
            snippets.append((f"{path.relative_to(root)}#{index}", chunk))
failures = 0
for name, chunk in snippets:
    for extra in ([], ["--mlir-print-op-generic"]):
        first = subprocess.run(["tpuc-opt", "-", *extra], input=chunk, capture_output=True, text=True)
        if first.returncode != 0:
            print(f"FAIL {name}: does not parse: {first.stderr.strip().splitlines()[0]}")
            failures += 1
            break
        second = subprocess.run(["tpuc-opt", "-", *extra], input=first.stdout, capture_output=True, text=True)
        if second.returncode != 0 or second.stdout != first.stdout:
            print(f"FAIL {name} {' '.join(extra)}: printed form does not round-trip")
            failures += 1
print(f"round-tripped {len(snippets)} snippets, {failures} failures")
sys.exit(1 if failures or not snippets else 0)
