"""The fault campaign (``robodyn faults``): the controller in its own process against
scripted faults, every invariant checked on every message.

``cases`` (the cases by name, what must hold), ``scripts`` (what each case does to the
controller's process), ``bad_inputs`` (the command line's), ``fixtures`` (the Panda, plain
and hostile trajectories), ``probe`` (the controller process and the probe node that feeds
and watches it), ``goal_client`` (a goal sent from a process of its own), ``checks`` (run a
case, the invariants), ``campaign`` (all cases, the summary table). A ROS client: it drives
the product's nodes as processes.
"""
