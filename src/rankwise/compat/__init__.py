"""Drop-in Python APIs of other evaluation libraries, computed by rankwise: :mod:`.pytrec_eval`, :mod:`.ir_measures`."""
