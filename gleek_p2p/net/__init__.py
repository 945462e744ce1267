"""The network layer: framing, wire messages, handshake, formation, transport, discovery.

Sans-IO cores (framing, messages, handshake, formation) and the asyncio
shell around them (connection, discovery). See SPEC.md section 5 and
protocol/wire.md.
"""
