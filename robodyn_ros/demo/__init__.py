"""The in-process demo (``robodyn demo``): MuJoCo simulator, controller and recorder on one
executor in lock step, then validation of the bag it wrote."""
