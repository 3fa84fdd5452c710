#!/usr/bin/env python3
"""Case-insensitive names under wine: tg.exe against rg.exe,
scanning and from an index, on a tree whose names differ from the
patterns, globs, ignore rules and path arguments only in case.

Wine looks names up without regard to case, as NTFS and APFS do by
default; this is the one case-insensitive file system that can be run
here (the kernel has no ext4 casefold and no vfat). What it shows: globs,
ignore rules and explicit paths spelt in another case are treated as
rg.exe treats them, by the scan and by the index.

Run by .ci/wine (or alone: `.ci/wine case`).
usage: wine_case.py BIN_DIR WORK_DIR
Prints one line per mismatch and a closing `N passed, N failed`.
"""

import os
import shutil
import sys

import wine_diff as w

FILES = {
    ".gitignore": "*.LOG\nBuild/\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    "README.MD": "needle in the readme\n",
    "notes.md": "needle in notes\n",
    "app.log": "needle in app.log (ignored only without regard to case)\n",
    "Other.LOG": "needle in Other.LOG (ignored)\n",
    "build/out.txt": "needle in build/ (ignored only without regard to case)\n",
    "src/Lib.rs": "fn needle() {}\n",
    "src/deep/Mod.RS": "// needle deep\n",
}

CASES = [
    ("plain", ["-n", "needle"]),
    ("glob_upper", ["-g", "*.RS", "-n", "needle"]),
    ("glob_lower", ["-g", "*.rs", "-n", "needle"]),
    ("iglob", ["--iglob", "*.rs", "-n", "needle"]),
    ("glob_ci", ["--glob-case-insensitive", "-g", "*.md", "-n", "needle"]),
    ("glob_not", ["-g", "!*.md", "-l", "needle"]),
    ("ignore_ci", ["--ignore-file-case-insensitive", "-l", "needle"]),
    ("type_rust", ["-t", "rust", "-l", "needle"]),
    ("files", ["--files"]),
    ("path_dir_upper", ["-n", "needle", "SRC"]),
    ("path_file_other_case", ["-n", "needle", "src\\LIB.RS"]),
    ("path_mixed", ["-n", "needle", "Src/Deep"]),
    ("path_ignored_dir_other_case", ["-n", "needle", "BUILD"]),
    ("files_upper_dir", ["--files", "SRC"]),
]


def main():
    tree = os.path.join(w.WORK, "case")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    for rel, text in FILES.items():
        path = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    for name, args in CASES:
        w.compare(f"case/scan/{name}", ["--sort", "path"] + args, tree)
    built = w.run("tg.exe", ["index", "-q", "."], tree)
    if built[1] != 0:
        w.failed.append("case/index")
        print(f"MISMATCH case/index: exit {built[1]}: {built[2][:400]!r}")
    for name, args in CASES:
        w.compare(f"case/index/{name}", ["--sort", "path"] + args, tree)
    print(f"{w.passed} passed, {len(w.failed)} failed")
    return 1 if w.failed else 0


if __name__ == "__main__":
    sys.exit(main())
