"""Taking the memory out of the vault and back in: exports a person can read (Markdown) or
restore (JSON Lines), and the import that restores one into a new vault."""
