"""The write path: a memory validated, stored with everything that changes with it, superseded
with its history kept, or captured to the inbox."""
