"""``cairn doctor``: the checks of an installation (``checks``), the Qt probe run in a child
process (``qt``) and the shape of a finding (``findings``). Imports the core; the core never
imports it."""
