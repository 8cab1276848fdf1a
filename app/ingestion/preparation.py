"""A file read, made ready to be written: chunked into passages (at most the vault's passage
limit), titled as its notes folder titles it, the new names it introduces found, and embedded,
all before the write lock is taken (see ``pipeline``). A long document's passages are embedded
part by part as they are written instead (``store.Prepared.passage_vectors`` is None).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.ingestion import parts, shapes
from cairn.app.ingestion.plan import PlannedFile
from cairn.app.ingestion.store import DocumentStore, Prepared
from cairn.app.linking import mentions, recognise
from cairn.app.packs import Pack
from cairn.app.text.surface import searchable_text
from cairn.ingest import notes_folder
from cairn.ingest.document import ExtractedDocument
from cairn.ingest.file_names import readable
from cairn.storage import name_index
from cairn.storage.vault import Vault

# A document of more passages than this is written in parts (``store`` resumes one a kill
# stopped), never whole in one transaction (see ``slices``): the dedup gate weighs each
# passage inside the write lock, a few milliseconds each on a quiet machine and ten times that
# on a loaded one.
WHOLE_PASSAGES = 64


class Preparer:
    """Prepares the files of one run, in one scope, for ``store``."""

    def __init__(
        self,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        store: DocumentStore,
        scope: str,
        max_passages: int,
    ) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self._store = store
        self._scope = scope
        self._max_passages = max_passages
        self._namings: dict[Path, notes_folder.Naming | None] = {}  # per folder given

    def prepare(self, planned: PlannedFile, document: ExtractedDocument) -> Prepared:
        """Chunk, keep at most the passage limit, and embed in one call the Document, the
        names of the new entities it introduces and (for a short document) its passages."""
        if self._store.matcher is None:
            with self._vault.read() as conn:
                self._store.matcher = mentions.MentionMatcher(
                    name_index.mentionable(conn, [self._scope])
                )
        passages, owners = parts.split(document)
        title = shapes.document_title(
            self._note_title(planned, document) or document.title, Path(planned.source)
        )
        attrs, attr_warnings = shapes.document_attrs(document, planned, self._pack)
        warnings = [*document.warnings, *attr_warnings]
        total = len(passages)
        if total > self._max_passages:
            passages = passages[: self._max_passages]
            warnings.append(
                f"only its first {len(passages):,} of {total:,} passages were kept (the limit "
                "ingest_max_passages). To keep all of it, split it into smaller files, or raise "
                "the limit (cairn settings ingest_max_passages N) and add it under a new name."
            )
        prepared = Prepared(
            planned, document, title, attrs, warnings, passages, None, None, [], total
        )
        prepared.owners = owners[: len(passages)]
        # Past the passage limit, the parts whose text is left out are left out whole.
        cut = total > len(passages) and prepared.owners
        kept_parts = prepared.owners[-1] + 1 if cut else None
        prepared.parts = parts.prepare(document, planned, self._pack)[:kept_parts]
        prepared.body = shapes.document_body(document)
        self._embed_all(prepared, self._candidates(document))
        return prepared

    def embed(self, texts: Sequence[str]) -> list[Any]:
        embedder = self._space.embedder
        return [None] * len(texts) if embedder is None else list(embedder.embed(texts))

    def _candidates(self, document: ExtractedDocument) -> list[mentions.Candidate]:
        """The entities the text names, and the people it names as taking part (a chat's
        speakers), which become entities or are found among those known by the same name."""
        assert self._store.matcher is not None
        text = "\n\n".join(d.text for d in (document, *document.parts))
        evidence = self._evidence()
        evidence.learn(text)
        found = mentions.candidates(text, self._store.matcher, evidence)
        named = {c.name.casefold() for c in found}
        found += [
            mentions.Candidate(name, "Person", 1)
            for name in parts.people(document)
            if name.casefold() not in named
        ]
        return [c for c in found if c.type in self._pack.node_types]

    def _evidence(self) -> recognise.CaseEvidence:
        """The scope's case evidence, shared with the write path (``NoteMentions``)."""
        if self._store.evidence is None:
            with self._vault.read() as conn:
                self._store.evidence = self._store.note_mentions.evidence(conn, self._scope)
        return self._store.evidence

    def _embed_all(self, prepared: Prepared, found: list[mentions.Candidate]) -> None:
        """One call for the texts the writer would embed: the Document's searchable text, the
        new names', the parts', and for a short document each passage's."""
        short = len(prepared.passages) <= WHOLE_PASSAGES
        document = searchable_text(prepared.title, prepared.body, prepared.attrs)
        texts = [document, *(c.name for c in found)]
        texts += [part.searchable for part in prepared.parts]
        if short:
            texts += [prepared.passage_text(p) for p in prepared.passages]
        vectors = self.embed(texts)
        prepared.document_vector = vectors[0]
        prepared.candidates = list(zip(found, vectors[1 : 1 + len(found)], strict=True))
        after = 1 + len(found)
        for part, vector in zip(prepared.parts, vectors[after:], strict=False):
            part.vector = vector
        if short:
            prepared.passage_vectors = vectors[after + len(prepared.parts) :]

    def _note_title(self, planned: PlannedFile, document: ExtractedDocument) -> str | None:
        """A note of a notes folder is titled as its tool titles it (its file name, or the
        title it declares), not by a heading inside it; None for any other file."""
        root = planned.root
        if root is None:
            return None
        if root not in self._namings:
            kind = notes_folder.detect(root)
            self._namings[root] = notes_folder.Naming.of(root, kind) if kind else None
        naming = self._namings[root]
        if naming is None or not naming.is_note(planned.path):
            return None
        return naming.title_of(Path(readable(planned.path.relative_to(root))), document)
