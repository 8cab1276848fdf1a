"""Code files (source code). Python is read through ``ast``: the module docstring, and each
class and function as its own segment (its source lines, so the code itself is searchable, with
its line range and its place, e.g. ``("Vault", "open")``). Other languages are read as text,
paragraph by paragraph, with line ranges. Code that does not parse is kept as text, with a
warning.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import PurePath

from cairn.ingest import encoding, textfile
from cairn.ingest.document import ExtractedDocument, Locator, Segment
from cairn.ingest.format_declaration import Format, Reading

LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".go": "go", ".rs": "rust", ".c": "c",
    ".h": "c", ".cc": "c++", ".cpp": "c++", ".hpp": "c++", ".java": "java", ".kt": "kotlin",
    ".rb": "ruby", ".php": "php", ".swift": "swift", ".sh": "shell", ".sql": "sql",
    ".lua": "lua", ".r": "r", ".scala": "scala", ".cs": "c#",
}  # fmt: skip
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def extract(data: bytes, name: str) -> ExtractedDocument:
    language = LANGUAGES.get(PurePath(name).suffix.lower(), "text")
    # Decoded here, so a refusal names the file itself, not the ".txt" it is then read as.
    source = encoding.decode(data, name)
    as_text = textfile.extract(source.encode(), PurePath(name).with_suffix(".txt").name)
    media_type = f"text/x-{language}"
    if language != "python":
        return dataclasses.replace(as_text, media_type=media_type, title=PurePath(name).name)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        # Python's own parser gives up on code nested too deeply with a RecursionError, or a
        # MemoryError when its stack overflows (``-`` repeated a hundred thousand times).
        if isinstance(exc, RecursionError | MemoryError):
            warning = "the Python code is nested more deeply than Python parses; kept as text"
        else:
            warning = f"the Python code does not parse ({exc}); kept as text"
        return dataclasses.replace(
            as_text,
            media_type=media_type,
            title=PurePath(name).name,
            warnings=(*as_text.warnings, warning),
        )
    lines = source.replace("\r\n", "\n").split("\n")
    segments = list(_python_segments(tree, lines))
    return ExtractedDocument(
        title=PurePath(name).name,
        media_type=media_type,
        segments=tuple(segments),
        metadata={"language": language},
    )


def _python_segments(tree: ast.Module, lines: list[str]) -> Iterator[Segment]:
    docstring = ast.get_docstring(tree)
    if docstring:
        first = tree.body[0]
        yield Segment(docstring, Locator(line_start=first.lineno, line_end=first.end_lineno))
    yield from _definitions(tree.body, lines, ())
    # Module-level code outside any definition (constants, the main guard), in runs.
    run: list[ast.stmt] = []
    body = tree.body[1:] if docstring else tree.body
    for statement in [*body, None]:
        if statement is None or isinstance(statement, _DEFINITIONS):
            if run:
                start, end = run[0].lineno, run[-1].end_lineno or run[-1].lineno
                text = "\n".join(lines[start - 1 : end]).strip()
                if text:
                    yield Segment(text, Locator(line_start=start, line_end=end))
                run = []
        else:
            run.append(statement)


def _definitions(
    body: list[ast.stmt], lines: list[str], path: tuple[str, ...]
) -> Iterator[Segment]:
    for node in body:
        if not isinstance(node, _DEFINITIONS):
            continue
        place = (*path, node.name)
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        if isinstance(node, ast.ClassDef):
            # The class's own lines up to its first method; the methods follow on their own.
            first_def = next((n for n in node.body if isinstance(n, _DEFINITIONS)), None)
            if first_def is not None:
                end = min([first_def.lineno, *(d.lineno for d in first_def.decorator_list)]) - 1
        text = "\n".join(lines[start - 1 : end]).strip()
        if text:
            yield Segment(text, Locator(heading=place, line_start=start, line_end=end))
        yield from _definitions(node.body, lines, place)


def _read(data: bytes, name: str, reading: Reading) -> ExtractedDocument:
    return extract(data, name)


_READ = frozenset(
    {".py", ".js", ".ts", ".tsx", ".jsx", ".java", ".c", ".h", ".cpp", ".hpp", ".rs", ".go",
     ".rb", ".sh", ".sql", ".toml", ".yaml", ".yml", ".json", ".css", ".kt", ".swift", ".cs"}
)  # fmt: skip
CODE = Format(
    name="code",
    label="code",
    suffixes=_READ,
    media_types=frozenset(f"text/x-{LANGUAGES[suffix]}" for suffix in _READ & LANGUAGES.keys())
    | {"application/json", "application/toml", "application/yaml", "text/css"},
    read=_read,
)
