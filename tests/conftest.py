"""Shared test set-up: every test runs headless."""

import os

# pygame reads these when the display starts; tests never need a screen or a sound card.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
