"""The ingest line: how fast files become passages, on the shared corpus (``../shared/corpus``).

1. PDF text layer: ``pdf.extract`` over the py-pdf sample files that have one on every page;
   pages/s over the whole set, and the median of the files' seconds per page.
2. OCR: ``image.extract`` on two TIFF scans and ``pdf.extract`` with ``ocr.pdf_page_ocr()`` on a
   scanned PDF; seconds per page.
3. Transcription: ``audio.extract`` on every recording in 03_audio; the real-time factor
   (processing seconds / audio seconds), after one warm-up. The model's join and load are
   timed on their own, in a temporary data dir.
4. End to end: ``MemoryService.ingest`` of a fixed mixed folder (Foam notes, the text PDFs, the
   mammoth DOCX files, 20 news pages) into a fresh vault with the real model; the time is split
   by the pipeline's progress stages, and the embedding time is summed by a wrapper embedder.

Runs are repeated (``RUNS``) and medians quoted: the machine is shared. Without the corpus the
line is skipped with a message, never failed.
"""

from __future__ import annotations

import gzip
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.corpus import PROJECT_ROOT
from bench.embedders import TimedEmbedder
from bench.measure import load_average
from cairn.app.ingestion.report import IngestProgress
from cairn.app.ingestion.request import IngestRequest
from cairn.ingest.document import ExtractedDocument, ExtractionError

CORPUS = PROJECT_ROOT.parent / "shared" / "corpus"
TEXT_PDFS = CORPUS / "05_documents" / "py-pdf_sample-files"
OCR_IMAGES = (
    CORPUS / "04_ocr" / "tesseract_test" / "phototest.tif",
    CORPUS / "04_ocr" / "tesseract_test" / "8071_093.3B.tif",
)
OCR_PDF = CORPUS / "05_documents" / "ocrmypdf_scanned" / "linn.pdf"
AUDIO = CORPUS / "03_audio"
WARMUP_AUDIO = AUDIO / "openai_whisper" / "jfk.flac"
FOAM = CORPUS / "06_pkm" / "foam_docs"
DOCX = CORPUS / "05_documents" / "mammoth_docx"
HTML = CORPUS / "05_documents" / "article_extraction_benchmark_html" / "html"
HTML_PAGES = 20
RUNS = 3
PASSPHRASE = "bench: ingest line"


def line(root: Path) -> dict[str, Any]:
    """All four measurements; ``root`` is a temporary folder for the data dir and the vault."""
    if not CORPUS.is_dir():
        message = f"skipped: corpus not found at {CORPUS}"
        _say(message)
        return {"skipped": message}
    result: dict[str, Any] = {"corpus": str(CORPUS), "load_average_at_start": load_average()}
    steps: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("pdf_text", pdf_text),
        ("ocr", ocr_pages),
        ("transcription", lambda: transcription(root)),
        ("end_to_end", lambda: end_to_end(root)),
    ]
    for name, step in steps:
        _say(f"ingest: {name.replace('_', ' ')}")
        try:
            result[name] = step()
        except (ExtractionError, FileNotFoundError) as exc:  # a missing tool, model or file
            result[name] = {"skipped": f"skipped: {exc}"}
            _say(result[name]["skipped"])
    result["load_average_at_end"] = load_average()
    return result


# -- 1. PDF text layer ---------------------------------------------------------------------------


@cache
def text_layer_pdfs() -> tuple[tuple[Path, int], ...]:
    """(path, pages) of the sample PDFs pypdf reads with text on every page; this pass is also
    the warm-up. A file it cannot open (017's broken xref) or one needing OCR is left out."""
    from cairn.ingest import pdf

    chosen = []
    for path in sorted(TEXT_PDFS.rglob("*.pdf")):
        try:
            document = pdf.extract(path.read_bytes(), path.name)
        except ExtractionError:
            continue
        if not any("no text layer" in warning for warning in document.warnings):
            chosen.append((path, int(document.metadata["pages"])))
    return tuple(chosen)


def pdf_text() -> dict[str, Any]:
    from cairn.ingest import pdf

    files = [(path, path.read_bytes(), pages) for path, pages in text_layer_pdfs()]
    if not files:
        raise FileNotFoundError(f"no PDF with a text layer in {TEXT_PDFS}")
    per_file: dict[str, list[float]] = {path.name: [] for path, _, _ in files}
    totals: list[float] = []
    for _ in range(RUNS):
        total = 0.0
        for path, data, _ in files:
            took = _timed(pdf.extract, data, path.name)[1]
            per_file[path.name].append(took)
            total += took
        totals.append(total)
    pages = sum(count for _, _, count in files)
    per_page = {path.name: statistics.median(per_file[path.name]) / n for path, _, n in files}
    return {
        "files": len(files),
        "pages": pages,
        "runs_s": _rounded(totals),
        "pages_per_s": round(pages / statistics.median(totals), 1),
        "median_ms_per_page": round(statistics.median(per_page.values()) * 1000, 1),
        "per_file_ms_per_page": {name: round(s * 1000, 1) for name, s in per_page.items()},
    }


# -- 2. OCR --------------------------------------------------------------------------------------


def ocr_pages() -> dict[str, Any]:
    from cairn.ingest import image, ocr, pdf

    settings = ocr.OcrSettings()
    readers: list[tuple[Path, Callable[[bytes, str], ExtractedDocument]]] = [
        (path, lambda data, name: image.extract(data, name, settings)) for path in OCR_IMAGES
    ]
    readers.append(
        (OCR_PDF, lambda data, name: pdf.extract(data, name, ocr_page=ocr.pdf_page_ocr(settings)))
    )
    files: dict[str, Any] = {}
    for path, read in readers:
        data = path.read_bytes()
        runs = [_timed(read, data, path.name) for _ in range(RUNS)]
        document = runs[-1][0]
        pages = int(document.metadata.get("pages", 1))
        seconds = [took for _, took in runs]
        files[path.name] = {
            "pages": pages,
            "runs_s": _rounded(seconds),
            "s_per_page": round(statistics.median(seconds) / pages, 2),
            "words": sum(p["words"] for p in document.metadata.get("ocr_pages", [])),
            "confidence": document.metadata.get("ocr_confidence"),
        }
    return {"tesseract_threads": ocr.OMP_THREAD_LIMIT, "files": files}


# -- 3. Transcription ----------------------------------------------------------------------------


def transcription(root: Path) -> dict[str, Any]:
    from cairn.ingest import audio, audio_settings

    settings = audio_settings.WhisperSettings(data_dir=root / "whisper-data")
    _, join_s = _timed(audio.model_dir, settings)  # joins the two halves, verified
    _, load_s = _timed(audio.load_model, settings)
    paths = sorted(p for p in AUDIO.rglob("*") if p.suffix.lower() in audio.AUDIO.suffixes)
    if not paths:
        raise FileNotFoundError(f"no recordings in {AUDIO}")
    warmup = WARMUP_AUDIO if WARMUP_AUDIO in paths else paths[0]
    _, warmup_s = _timed(lambda: audio.extract(warmup.read_bytes(), warmup.name, settings))
    files: dict[str, Any] = {}
    for path in paths:
        data = path.read_bytes()
        runs = [_timed(audio.extract, data, path.name, settings) for _ in range(RUNS)]
        duration = float(runs[-1][0].metadata["duration_s"])
        seconds = [took for _, took in runs]
        files[str(path.relative_to(AUDIO))] = {
            "audio_s": duration,
            "runs_s": _rounded(seconds),
            "rtf": round(statistics.median(seconds) / duration, 3),
        }
    audio_s = sum(f["audio_s"] for f in files.values())
    work_s = sum(statistics.median(f["runs_s"]) for f in files.values())
    return {
        "model": "whisper-base (bundled, int8)",
        "threads": settings.threads,
        "beam_size": settings.beam_size,
        "model_join_s": round(join_s, 2),
        "model_load_s": round(load_s, 2),
        "warmup_s": round(warmup_s, 2),
        "audio_s": round(audio_s, 1),
        "rtf": round(work_s / audio_s, 3),
        "files": files,
    }


# -- 4. End to end -------------------------------------------------------------------------------


class CountingEmbedder(TimedEmbedder):
    """The real model's time and the number of texts it embedded, call by call."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.texts: list[int] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts.append(len(texts))
        return super().embed(texts)


class StageClock:
    """A progress sink: the time between two events goes to the stage of the first."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.reads: list[float] = []
        self._stage: str | None = "planning"  # until the first event
        self._at = time.perf_counter()

    def __call__(self, event: IngestProgress) -> None:
        if event.stage == "file_progress":  # told from the reading thread: not a stage of its own
            return
        now = time.perf_counter()
        if self._stage is not None:
            self.seconds[self._stage] = self.seconds.get(self._stage, 0.0) + now - self._at
            if self._stage == "reading":
                self.reads.append(now - self._at)
        self._stage, self._at = event.stage, now


def mixed_folder(folder: Path) -> Path:
    """The end-to-end set, copied: Foam notes, the text PDFs, the DOCX files, 20 news pages."""
    shutil.copytree(FOAM, folder / "foam")
    (folder / "pdf").mkdir(parents=True)
    for path, _ in text_layer_pdfs():
        shutil.copy2(path, folder / "pdf" / path.name)
    shutil.copytree(DOCX, folder / "docx", ignore=shutil.ignore_patterns("*.tsv", "LICENSE"))
    (folder / "html").mkdir()
    for page in sorted(HTML.glob("*.html.gz"))[:HTML_PAGES]:
        (folder / "html" / page.name.removesuffix(".gz")).write_bytes(
            gzip.decompress(page.read_bytes())
        )
    return folder


def end_to_end(root: Path) -> dict[str, Any]:
    from cairn.app import compose
    from cairn.app.embedding.model import MiniLMEmbedder

    for needed in (FOAM, DOCX, HTML):
        if not needed.is_dir():
            raise FileNotFoundError(f"{needed} is missing")
    folder = mixed_folder(root / "ingest-set")
    before = os.environ.get("CAIRN_DATA_DIR")
    os.environ["CAIRN_DATA_DIR"] = str(root / "ingest-data")
    try:
        model, load_s = _timed(MiniLMEmbedder)
        embedder = CountingEmbedder(model)
        service, create_s = _timed(
            lambda: compose.create_vault(root / "ingest.cairn", PASSPHRASE, embedder=embedder)
        )
        try:
            clock = StageClock()
            report, seconds = _timed(
                lambda: service.ingest(IngestRequest.of([folder]), progress=clock)
            )
        finally:
            service.close()
    finally:
        if before is None:
            os.environ.pop("CAIRN_DATA_DIR", None)
        else:
            os.environ["CAIRN_DATA_DIR"] = before
    read = [f for f in report.files if f.state == "ingested"]
    passages = sum(f.passages for f in read)
    embed_s = sum(embedder.durations)
    single_s = sum(s for s, n in zip(embedder.durations, embedder.texts, strict=True) if n == 1)
    return {
        "set": {
            part.name: sum(1 for f in part.rglob("*") if f.is_file())
            for part in sorted(folder.iterdir())
        },
        "model_load_s": round(load_s, 2),
        "vault_create_s": round(create_s, 2),
        "files": report.counts(),
        "failed": {Path(f.path).name: f.error for f in report.failed},
        "passages": passages,
        "seconds": round(seconds, 1),
        "passages_per_s": round(passages / seconds, 1),
        "files_per_s": round(len(read) / seconds, 2),
        "embedding_s": round(embed_s, 1),
        "embedding_share": round(embed_s / seconds, 3),
        "embed_calls": len(embedder.texts),
        "embed_single_text_calls": sum(1 for n in embedder.texts if n == 1),
        "embed_single_text_s": round(single_s, 1),
        "texts_embedded": sum(embedder.texts),
        "stages_s": {stage: round(s, 2) for stage, s in clock.seconds.items()},
        "first_read_s": round(clock.reads[0], 2) if clock.reads else None,
        "stubs": report.stubs,
        "mentions": report.mentions,
        "links": report.links,
        "pending_review": report.pending_review,
    }


# -- printing ------------------------------------------------------------------------------------


def print_line(result: dict[str, Any]) -> None:
    print("\nIngest (shared corpus)")
    if "skipped" in result:
        print(f"  {result['skipped']}")
        return
    print(
        f"  load average at start {result['load_average_at_start']}, "
        f"at end {result['load_average_at_end']}"
    )
    for name, printer in (
        ("pdf_text", _print_pdf),
        ("ocr", _print_ocr),
        ("transcription", _print_audio),
        ("end_to_end", _print_end_to_end),
    ):
        part = result.get(name) or {"skipped": "skipped: not run"}
        if "skipped" in part:
            print(f"  {name}: {part['skipped']}")
        else:
            printer(part)


def _print_pdf(p: dict[str, Any]) -> None:
    print(
        f"  PDF text layer (pypdf)  {p['pages_per_s']:7.1f} pages/s  ({p['pages']} pages in "
        f"{p['files']} files, runs {p['runs_s']} s; median file {p['median_ms_per_page']} ms/page)"
    )


def _print_ocr(o: dict[str, Any]) -> None:
    for name, f in o["files"].items():
        print(
            f"  OCR {name:<19} {f['s_per_page']:7.2f} s/page    ({f['pages']} page(s), runs "
            f"{f['runs_s']} s; {f['words']} words, confidence {f['confidence']})"
        )


def _print_audio(a: dict[str, Any]) -> None:
    rtfs = [f["rtf"] for f in a["files"].values()]
    print(
        f"  transcription RTF       {a['rtf']:7.3f}          ({len(rtfs)} files, {a['audio_s']} s "
        f"of audio; per file {min(rtfs)}-{max(rtfs)}; {a['threads']} thread(s), beam "
        f"{a['beam_size']}; model join {a['model_join_s']} s, load {a['model_load_s']} s)"
    )
    folders: dict[str, list[dict[str, Any]]] = {}
    for name, f in a["files"].items():
        folders.setdefault(name.split("/")[0], []).append(f)
    for folder, files in folders.items():
        audio_s = sum(f["audio_s"] for f in files)
        work_s = sum(statistics.median(f["runs_s"]) for f in files)
        print(
            f"    {folder:<26} {len(files):2} file(s) {audio_s:6.1f} s of audio  "
            f"RTF {work_s / audio_s:.3f}"
        )


def _print_end_to_end(e: dict[str, Any]) -> None:
    print(
        f"  end to end              {e['passages_per_s']:7.1f} passages/s  "
        f"({e['passages']} passages from {e['files'].get('ingested', 0)} files in "
        f"{e['seconds']} s, {e['files_per_s']} files/s; files {e['files']})"
    )
    stages = ", ".join(f"{k} {v}" for k, v in e["stages_s"].items())
    print(
        f"    embedding {e['embedding_s']} s ({e['embedding_share']:.0%}; {e['texts_embedded']} "
        f"texts in {e['embed_calls']} calls, of which {e['embed_single_text_calls']} of one text: "
        f"{e['embed_single_text_s']} s); set {e['set']}"
    )
    print(
        f"    stages s: {stages}; first read (worker start) {e['first_read_s']} s; "
        f"model load {e['model_load_s']} s"
    )


# -- helpers -------------------------------------------------------------------------------------


def _timed(work: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``work(*args)`` and the seconds it took."""
    start = time.perf_counter()
    value = work(*args)
    return value, time.perf_counter() - start


def _rounded(values: Sequence[float]) -> list[float]:
    return [round(v, 3) for v in values]


def _say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)
