"""The words of a memory: the one searchable surface both indexes read, and the pure reading of
statements (numbers, dates, times, negation) that the write gate and the read path share."""
