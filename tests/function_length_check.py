#!/usr/bin/env python3
"""No function in src/ over 100 lines (issue 31): lists every function definition of src/**/*.cc and
*.h longer than LIMIT lines, from the first line of its declaration to its closing brace, and fails
(exit 1) when one is listed neither in EXCEPTIONS (splitting would hurt, and why) nor in PENDING
(not split yet), or when a listed one is no longer over the limit. Test bodies (TEST(...) { ... }) are functions too.

The scan is lexical: comments, literals and preprocessor lines are blanked, then each `{` at the
level of a namespace, class or file is a function body when the declaration before it has a `)`
(a namespace, class, struct, union or enum body is entered; an initialiser list is skipped).
A lambda counts in the function that holds it.

Usage: function_length_check.py <repo root> [--limit N] [--all]   (--all: list every function over
the limit, the listed ones included)."""
import pathlib
import re
import sys

LIMIT = 100

# "path:function": why splitting it would hurt. Keep this short.
EXCEPTIONS = {
    "src/analyze/api_specs.cc:Specs": "one table, an entry per CUDA/NCCL/cuBLAS call: read whole, as the API's list",
    "src/toolchain/toolchain.cc:Features": "one entry per feature `cuco doctor` lists, in its order: a table in code",
    "src/workload/cpp_tokens.cc:LexCpp": "a lexer's one loop over the text; its states read best together",
}

# Not split yet (issue 31 leaves them: each is a debt to pay, not an exception). The test fails on
# any other function over the limit, and on an entry here that is no longer over it.
PENDING = set()

CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$|\bextern\s+\"C\"\s*$")


def blank(text):
    """Comments, string and character literals (raw strings too) and preprocessor lines as spaces,
    newlines kept."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c); i += 1; continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n"); i += 2; continue
                out.append(" "); i += 1
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" "); i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j; continue
        m = re.match(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(', text[i:i + 40])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end])); i = end; continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" "); i += 1; continue  # a digit separator (1'000)
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j, n - 1) - i + 1)); i = j + 1; continue
        out.append(c); i += 1
    return "".join(out)


def match_brace(code, open_at):
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def functions(code):
    """(first line, last line, name) of each function definition, walking containers."""
    found = []

    def walk(begin, end):
        header_start = begin
        k = begin
        while k < end:
            c = code[k]
            if c in ";}":
                header_start = k + 1
            elif c == "{":
                header = code[header_start:k]
                close = match_brace(code, k)
                if CONTAINER.search(" ".join(header.split())):
                    walk(k + 1, close)
                elif ")" in header and not header.rstrip().endswith("="):
                    first = header_start + len(header) - len(header.lstrip())
                    name = " ".join(header[:header.find("(")].split()[-1:]) or "?"
                    if name in ("TEST", "TEST_F", "TEST_P"):
                        name += "(" + " ".join(header[header.find("(") + 1:header.find(")")].split()) + ")"
                    found.append((code.count("\n", 0, first) + 1, code.count("\n", 0, close) + 1, name))
                k = close
                header_start = k + 1
            k += 1

    walk(0, len(code))
    return found


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    root = pathlib.Path(args[0])
    limit = int(args[args.index("--limit") + 1]) if "--limit" in args else LIMIT
    show_all = "--all" in args
    long_ones, seen = [], set()
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".cc", ".h") or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        for first, last, name in functions(blank(path.read_text(errors="replace"))):
            lines = last - first + 1
            if lines > limit:
                key = f"{rel}:{name}"
                seen.add(key)
                long_ones.append((key in EXCEPTIONS or key in PENDING, f"{rel}:{first}: {name} ({lines} lines)"))
    failing = [text for excepted, text in long_ones if not excepted]
    for excepted, text in long_ones:
        if show_all or not excepted:
            print(("listed   " if excepted else "") + text)
    stale = sorted((set(EXCEPTIONS) | PENDING) - seen)
    for key in stale:
        print(f"stale exception (no longer over {limit} lines, or gone): {key}")
    print(f"{len(failing)} function(s) over {limit} lines unlisted, {len(long_ones) - len(failing)} listed "
          f"({len(EXCEPTIONS)} exceptions, {len(PENDING)} pending)")
    return 1 if failing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
