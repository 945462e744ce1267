"""The log layer: canonical encoding, signed envelopes, the hash chain, the store.

Modules: ``canonical`` (one byte string per value), ``keys`` (Ed25519
identities and key checks), ``envelope`` (signed events), ``chain`` (the
hash-linked session history, equivocation proofs) and ``store`` (the durable
append-only file and the secrets file). The rules are in
protocol/encoding.md and SPEC.md section 3.
"""
