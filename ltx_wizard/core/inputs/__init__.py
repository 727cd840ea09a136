"""Phase 3, the user's inputs: the LTX-2 checkout and its shipped recipes, checkpoints and
Gemma text encoders (read from their headers alone), and discovery of both on disk.
"""
