"""Wire formats below every layer: SSE framing, bounded JSON, the chat-completion chunk.

Standard library only and nothing of Frontier but the vocabulary, so the transducers,
the provider, the recorder, the secret scrubber and the tools can all share them
without importing one another.
"""
