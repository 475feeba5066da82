"""``rankwise trec_eval``, the drop-in for trec_eval 10: its command line (:mod:`.options`), a run from options to
output and notes (:mod:`.run`), its measure requests (:mod:`.request`), its output (:mod:`.output`), and the
judgment formats beside qrels (:mod:`.judgments`, what they share): judgment groups (:mod:`.judgment_groups`) and
preferences (:mod:`.prefs`). The command itself, which prints, is :mod:`rankwise.cli.trec_eval`."""
