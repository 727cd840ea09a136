"""Pictures in the terminal: which protocol draws them here (choice.py), and the two richer
encoders written for the keyframe sheets (kitty.py, sixel.py); half-blocks everywhere else
(widgets/keyframes.py)."""
