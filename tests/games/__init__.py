"""Games that only the tests register (``tests/conftest.py``): proof that a game is one
module and its data (``docs/adding-a-game.md``)."""
