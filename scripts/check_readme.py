#!/usr/bin/env python3
"""Checks that what README.md names exists, so the documentation and the tree cannot drift apart.

Usage: scripts/check_readme.py BUILD_DIR [README]

BUILD_DIR is a configured and built tree with tests (the ci or dev preset). Every preset has the
same layout, so a path the README gives under build/<preset>/ is looked up in BUILD_DIR.

What is checked, in every `code span` and fenced code block:
  - repository paths (scripts/run.sh, engine/include/hearth/result.h, a table row's folders)
  - build/<preset>/... paths: the preset exists, and the file exists in BUILD_DIR
  - --preset NAME: the preset exists (and is a build/test preset where the command needs one)
  - ctest -L LABEL / scripts/test.sh LABEL: the label exists; ctest -R NAME: a test matches
  - BINARY --gtest_filter=PATTERN: the pattern selects at least one case
  - hearth / scripts/run.sh options: listed by `hearth --help`
  - hearth-cli COMMAND [--option]: `hearth-cli help COMMAND` succeeds and lists the option
  - HEARTH_* variables: used somewhere in the build, the scripts or the sources
"""
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACEHOLDER = re.compile(r"<[^>]*>|\bNAME\b|\bDIR\b|\bFILE\b|\bCOMMAND\b|\bMODEL\b|\bTARGET\b")
SOURCE_EXT = (".cpp", ".h", ".cmake", ".txt", ".sh", ".py", ".json", ".qml", ".in")

passed = 0
failures = []


def check(ok, what):
    global passed
    if ok:
        passed += 1
    else:
        failures.append(what)
        print(f"FAIL {what}")


def run(cmd, **kw):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, **kw)


def code_pieces(text):
    """Yields (row_folders, line, piece) for each inline code span and each fenced code line.

    row_folders: in a layout-table row, the folders its first cell names (`engine/`), which the
    row's other spans are relative to."""
    in_fence = False
    para = ""  # the paragraph or list item so far: options are listed beside the program's name
    for line in text.splitlines():
        if not line.strip() or re.match(r"\s*([-*]|\d+\.)\s", line) or line.startswith("|"):
            para = ""
        para += line + "\n"
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            yield [], "", line.split("#", 1)[0].strip()
            continue
        folders = []
        m = re.match(r"\|([^|]*)\|", line)
        if m:
            folders = re.findall(r"`([A-Za-z0-9_.-]+/)`", m.group(1))
        for span in re.findall(r"`([^`]+)`", line):
            yield folders, para, span


def load_presets():
    with open(os.path.join(ROOT, "CMakePresets.json")) as f:
        data = json.load(f)
    kinds = {}
    for kind in ("configurePresets", "buildPresets", "testPresets"):
        kinds[kind] = {p["name"] for p in data.get(kind, []) if not p.get("hidden")}
    return kinds


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    build = os.path.abspath(sys.argv[1])
    readme = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "README.md")
    with open(readme) as f:
        text = f.read()
    presets = load_presets()
    # build folders that are not presets: made by a command in the README or by a script
    extra_build_dirs = set(re.findall(r"-B\s+build/([A-Za-z0-9_-]+)", text))
    scripts_dir = os.path.join(ROOT, "scripts")
    for name in os.listdir(scripts_dir):
        if name.endswith(".sh"):
            with open(os.path.join(scripts_dir, name)) as f:
                extra_build_dirs |= set(re.findall(r"build/([A-Za-z0-9_-]+)", f.read()))
    extra_build_dirs -= presets["configurePresets"]
    labels = set(run(["ctest", "--print-labels"], cwd=build).stdout.split()) - {
        "All", "Labels:", "labels:"}
    test_sh = open(os.path.join(ROOT, "scripts", "test.sh")).read()
    hearth = os.path.join(build, "bin", "hearth")
    cli = os.path.join(build, "bin", "hearth-cli")
    hearth_help = run([hearth, "--help"]).stdout if os.path.exists(hearth) else ""
    check(bool(hearth_help), f"{hearth} --help prints the options")
    cli_help = {}

    def cli_command_help(cmd):
        if cmd not in cli_help:
            r = run([cli, "help", cmd]) if os.path.exists(cli) else None
            cli_help[cmd] = (r.stdout + r.stderr) if r is not None and r.returncode == 0 else None
        return cli_help[cmd]

    sources = None

    def used_in_tree(word):
        nonlocal sources
        if sources is None:
            chunks = []
            for base, dirs, files in os.walk(ROOT):
                dirs[:] = [d for d in dirs if d not in ("build", ".git", "node_modules")]
                for name in files:
                    if name.endswith(SOURCE_EXT) or name == "CMakeLists.txt":
                        try:
                            with open(os.path.join(base, name), errors="replace") as f:
                                chunks.append(f.read())
                        except OSError:
                            pass
            sources = "\n".join(chunks)
        return word in sources

    seen = set()
    for rows, line, piece in code_pieces(text):
        if not piece or (tuple(rows), piece) in seen:
            continue
        seen.add((tuple(rows), piece))
        try:
            words = shlex.split(piece)
        except ValueError:
            words = piece.split()

        # Commands: presets, labels, test names, gtest filters, app and CLI options.
        for i, w in enumerate(words):
            nxt = words[i + 1] if i + 1 < len(words) else None
            if w == "--preset" and nxt and not PLACEHOLDER.search(nxt):
                check(nxt in presets["configurePresets"], f"preset '{nxt}' ({piece})")
                if words[0] == "ctest":
                    check(nxt in presets["testPresets"], f"test preset '{nxt}' ({piece})")
                if "--build" in words:
                    check(nxt in presets["buildPresets"], f"build preset '{nxt}' ({piece})")
            if words[0] == "ctest" and w == "-L" and nxt:
                check(all(l in labels for l in nxt.split("|")), f"CTest label '{nxt}' ({piece})")
            if words[0] == "ctest" and w == "-R" and nxt:
                r = run(["ctest", "-N", "-R", nxt], cwd=build)
                check(re.search(r"Total Tests: [1-9]", r.stdout) is not None,
                      f"a CTest entry matches '{nxt}' ({piece})")
            if w.startswith("--gtest_filter="):
                binary = words[0]
                if binary.startswith("build/"):
                    binary = os.path.join(build, binary.split("/", 2)[2])
                r = run([binary, "--gtest_list_tests", w])
                listed = [l for l in r.stdout.splitlines() if l.startswith("  ")]
                check(r.returncode == 0 and listed, f"'{w}' selects a case in {words[0]}")
        if words and words[0] == "scripts/test.sh" and len(words) > 1 and not words[1].startswith("-"):
            mode = words[1]
            check(mode in labels or re.search(rf'"{re.escape(mode)}"|= {re.escape(mode)} \]|\b{re.escape(mode)}\)', test_sh),
                  f"scripts/test.sh knows '{mode}'")
        if words and words[0] in ("hearth", "scripts/run.sh") or (
                words and words[0].endswith("/hearth") and "QT_QPA" not in words[0]):
            for w in words[1:]:
                if w.startswith("--"):
                    opt = w.split("=", 1)[0]
                    check(opt in hearth_help, f"hearth option {opt} ({piece})")
        if words and words[0].startswith("--") and re.search(r"`hearth[ `]", line):
            # an option listed beside the app's name (`hearth [model.gguf]`: `--data-dir DIR`)
            check(words[0].split("=", 1)[0] in hearth_help, f"hearth option {words[0]}")
        if "hearth" in words and words[0] != "hearth":
            for w in words[words.index("hearth") + 1:]:
                if w.startswith("--"):
                    check(w.split("=", 1)[0] in hearth_help, f"hearth option {w} ({piece})")
        if words and words[0] == "hearth-cli" and len(words) > 1:
            cmd = words[1]
            if cmd in ("--help", "help"):
                continue
            if PLACEHOLDER.search(cmd) or cmd.isupper():
                continue
            help_text = cli_command_help(cmd)
            check(help_text is not None, f"hearth-cli help {cmd} ({piece})")
            for w in words[2:]:
                if w.startswith("--") and help_text is not None:
                    opt = w.split("=", 1)[0]
                    check(opt in help_text, f"hearth-cli {cmd} option {opt}")

        # Paths and variables.
        for w in words:
            w = w.strip(",;:()'\"")
            if re.fullmatch(r"HEARTH_[A-Z0-9_]+", w):
                check(used_in_tree(w), f"variable {w} is used in the tree")
                continue
            if w.startswith("build/"):
                parts = w.split("/", 2)
                name = parts[1] if len(parts) > 1 else ""
                if PLACEHOLDER.search(name):
                    continue
                if name in extra_build_dirs:
                    continue
                check(name in presets["configurePresets"], f"build folder of preset '{name}' ({w})")
                rest = parts[2] if len(parts) > 2 else ""
                rest = PLACEHOLDER.split(rest)[0] if PLACEHOLDER.search(rest) else rest
                # what the build makes (programs, tests) must be there; what other scripts
                # write into the build folder later (packages, screenshots) need not be
                if rest.startswith(("bin/", "tests/")):
                    check(os.path.exists(os.path.join(build, rest)), f"{w} exists (as {build}/{rest})")
                continue
            if w.startswith("../") or w.startswith("~") or "://" in w or w.startswith("-"):
                continue
            if "/" not in w and not re.fullmatch(r"[A-Za-z0-9_-]+\.(qml|sh|md|h|json|ts)", w):
                if w not in ("LICENSE", ".clang-format", ".ci/run"):
                    continue
            path = PLACEHOLDER.split(w)[0] if PLACEHOLDER.search(w) else w
            if not path or path.startswith("./"):
                continue
            # A path is the repository's when its first folder is one of the repository's, or it
            # names a source-like file (so a misspelt `scrpts/run.sh` is caught); other relative
            # paths belong to installed trees or archives (`bin/hearth`).
            first = path.split("/", 1)[0]
            if not (rows or os.path.exists(os.path.join(ROOT, first)) or path.startswith("hearth/")
                    or re.search(r"\.(sh|py|cpp|h|qml|md|json|cmake|txt|yml|ts|xml)$", path)):
                continue
            candidates = [os.path.join(ROOT, path)]
            for row in rows:  # a layout-table row names folders relative to its own
                candidates.append(os.path.join(ROOT, row, path))
            if path.startswith("hearth/"):  # public headers are named as they are included
                candidates.append(os.path.join(ROOT, "engine/include", path))
            if "*" in path:
                continue
            if re.fullmatch(r"[A-Za-z0-9_]+\.[a-z]+", path) and "/" not in path and not rows:
                # a bare file name outside the layout table: a file anywhere in the tree will do
                found = any(path in files for _, _, files in os.walk(ROOT))
                check(found, f"file {path} exists in the tree")
                continue
            check(any(os.path.exists(c) for c in candidates), f"path {w} exists")

    total = passed + len(failures)
    print(f"readme: {passed} passed, {len(failures)} failed")
    return 0 if total and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
