"""Finding: the search panel and its results, and the library sidebar that narrows them."""
