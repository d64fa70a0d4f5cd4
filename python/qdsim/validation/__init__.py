"""Validation against reference engines (:mod:`qdsim.engines`): one experiment file in qdsim
and in ns-2/ns-3 side by side (:mod:`~qdsim.validation.validate`, ``qdsim validate``), and
the suite of paper scenarios and analytic laws (:mod:`~qdsim.validation.suite`) run into
docs/validation.md (:mod:`~qdsim.validation.page`, ``qdsim validate --suite``)."""
