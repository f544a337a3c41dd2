"""One module per game; :data:`referee.rules.game.GAME_CLASSES` names them (imported lazily)."""
