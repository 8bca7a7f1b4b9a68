#!/usr/bin/env python3
"""Fails, naming them, on functions of the C++ sources under the given
folders that are longer than LIMIT lines (issue 40: a function fits on a
screen). Counts from a function's opening brace to its closing one, with
comments and string literals stripped first; lambdas count in the function
that holds them.

    check-function-length.py LIMIT FOLDER...
"""

import pathlib
import re
import sys


def long_functions(path, limit):
    text = path.read_text()
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    opened = []  # (line, whether the brace opens a namespace, class or struct)
    line = 1
    for index, char in enumerate(text):
        if char == "\n":
            line += 1
        elif char == "{":
            head = text[text.rfind("\n", 0, index) + 1:index]
            scope = "namespace" in head or re.search(
                r"\b(struct|class)\b[^;(]*$", head) is not None
            opened.append((line, scope))
        elif char == "}" and opened:
            start, scope = opened.pop()
            # A function body: opened where only scopes enclose it.
            if not scope and all(outer for _, outer in opened):
                if line - start + 1 > limit:
                    yield start, line - start + 1


def main():
    limit = int(sys.argv[1])
    found = 0
    for folder in sys.argv[2:]:
        for path in sorted(pathlib.Path(folder).rglob("*.cpp")):
            for start, length in long_functions(path, limit):
                print(f"{path}:{start}: a function of {length} lines "
                      f"(at most {limit})")
                found += 1
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
