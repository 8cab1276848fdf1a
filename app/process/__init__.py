"""The running process rather than the vault: the diagnostic log, which holds no memory, and the
privacy of a process that holds decrypted memory (no core dump).
"""
