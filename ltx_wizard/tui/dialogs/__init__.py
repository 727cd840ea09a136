"""Modal dialogs; each dismisses with its answer (ModalScreen[T])."""
