"""Pure core of ltx-wizard: no textual, rich, torch or accelerate imports (tests enforce it)."""
