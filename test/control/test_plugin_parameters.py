"""control/plugin_parameters.py: what the C++ controller is given, written without
compiling a kernel (a launch process writes it, and every module it imports slows its exit
after Ctrl-C)."""

from fresh_imports import imported_after

from robodyn_ros.control.controller_dynamics import controller_dynamics
from robodyn_ros.control.plugin_parameters import plugin_config, plugin_parameters, plugin_rows
from robodyn_ros.model import load_robot


def test_the_parameters_are_written_without_numba_or_scipy():
    code = ('from robodyn_ros.control.plugin_parameters import plugin_config, '
            'plugin_parameters\n'
            'from robodyn_ros.model import load_robot\n'
            "values = plugin_parameters(load_robot('panda'), plugin_config({}))\n"
            "assert len(values['model']) == 7")
    found = imported_after(code, ('numba', 'scipy', 'llvmlite'))
    assert found == [], found


def test_the_rows_are_those_of_the_compiled_dynamics():
    model = load_robot('panda')
    config = plugin_config({'viscous': [0.1] * 7, 'coulomb': [0.2] * 7})
    dyn, _ = controller_dynamics(model, config)  # 'recursive', as the node runs it
    assert dyn.method == 'recursive'
    assert plugin_parameters(model, config)['model'] == plugin_rows(model, config, dyn)
