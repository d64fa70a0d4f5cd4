"""Paper figures reproduced: the experiment files of ``experiments/<paper>/`` run and drawn
(:mod:`~qdsim.papers.reproduce`, ``qdsim reproduce``)."""
