"""``referee tournament``: the club's tournament service (its record, the boxes' messages, the
room page, the export). The pure rules of the tournament are in ``referee.tournament``."""
