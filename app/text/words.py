"""The words that carry no subject of their own: articles, pronouns, prepositions, auxiliaries,
question words and greetings. A capital on one is no name (``linking.recognise``), and a
question left with only these once its names are taken out asks nothing by meaning
(``retrieval.who``)."""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION_WORDS = _words(
    "a an the this that these those there here my your his her its our their mine yours i "
    "me we us you he she it they them who whom whose which what when where why how and or but "
    "nor so yet if then than because as of in on at to for from by with without about into "
    "onto over under after before during since until upon via per not no yes all any some "
    "every each both either neither many much more most few other another such only just also "
    "very too is am are was were be been being do does did have has had will would shall "
    "should can could may might must let lets oh hey hi hello bye ok okay please thanks thank "
    "well like"
)
