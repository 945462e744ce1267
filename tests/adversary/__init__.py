"""Misbehaving peers for tests: they sign what honest seats never would."""
