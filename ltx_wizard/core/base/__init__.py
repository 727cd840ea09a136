"""The bottom layer: errors with exit codes, memory units, and text made safe to show.

Imports nothing else of the core.
"""
