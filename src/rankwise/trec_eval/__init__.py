"""``rankwise trec_eval``, the drop-in for trec_eval 10: its measure requests (:mod:`.request`), its output
(:mod:`.output`), and the judgment formats beside qrels: judgment groups (:mod:`.judgment_groups`) and preferences
(:mod:`.prefs`)."""
