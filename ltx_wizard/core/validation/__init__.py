"""Validation inputs: the media and prompts a recipe's validation samples read, what the user is
asked, and the splice into `validation.samples`.
"""
