"""Locking and unlocking: the passphrase dialogs, the saved passphrase in the system keyring, and
the automatic lock."""
