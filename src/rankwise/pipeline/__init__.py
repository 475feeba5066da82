"""The evaluation pipeline, one module a step: :mod:`.plan` (resolve measures, dialect and policies), :mod:`.load`
(read the inputs), :mod:`.compute` (align each query group, run the kernels), :mod:`.result` (assemble and account).
:func:`rankwise.evaluate` composes them."""
