"""Put a defect the default-path campaign was built against back into a copy of the tree,
to see which cases catch it (docs/reliability.md, "Each defect ... put back").

    git worktree add /tmp/defects HEAD
    python3 scripts/put_back_defects.py /tmp/defects D2 D3 D5
    ln -s "$PWD/.venv" /tmp/defects/.venv
    ROBODYN_ROS_WHEELS="$PWD/../shared/wheels" \
        bash /tmp/defects/scripts/build_workspace.sh /tmp/ws_defects
    ROBODYN_TEST_WS=/tmp/ws_defects PYTHONPATH=/tmp/defects \\
        .venv/bin/python -m pytest -q test/launch/test_default_path_faults.py

Never on the working tree: each substitution reintroduces a safety defect.
"""

import sys

CT = 'robodyn_controllers/src/'
#: name -> (what it puts back, [(path, text, replacement)])
DEFECTS = {
    'D1': ('a deactivated controller leaves its last torque on the motors', [
        (CT + 'mujoco_lockstep_system.cpp', '      claimed_[i] = false;\n      start_hold(i);\n',
         '      start_hold(i);  // DEFECT D1: still claimed, the last command stays\n'),
        (CT + 'computed_torque_controller.cpp', '  write_release();\n  snapshot_diagnostics',
         '  // DEFECT D1: no release command\n  snapshot_diagnostics')]),
    'D2': ('the acceleration unchecked, the reference not at rest after the last point', [
        (CT + 'supervisor.cpp',
         ' ||\n      std::abs(qdd_ref_[i]) > s_.acceleration_limit[i])', ')  /* DEFECT D2 */'),
        (CT + 'supervisor.cpp', '  if (unchanged_cycles_ >= AT_REST_CYCLES) {',
         '  if (false && unchanged_cycles_ >= AT_REST_CYCLES) {  // DEFECT D2')]),
    'D3': ('the JTC without goal and path tolerances', [
        ('robodyn_ros/model/ros2_control_urdf.py',
         "    if constraints:\n        jtc['constraints']",
         "    if False:  # DEFECT D3\n        jtc['constraints']")]),
    'D4': ('model files not checked against the description nor for physical limits', [
        (CT + 'computed_torque_model.cpp',
         '    continuous);\n  if (!error.empty()) {return false;}',
         '    continuous);\n  error.clear();  // DEFECT D4'),
        (CT + 'computed_torque_model.cpp',
         '    {params_.gravity[0], params_.gravity[1], params_.gravity[2]});\n'
         '  return error.empty();',
         '    {params_.gravity[0], params_.gravity[1], params_.gravity[2]});\n'
         '  error.clear();  // DEFECT D4\n  return true;')]),
    'D5': ("a late cycle's step up to 10 periods' budget", [
        ('robodyn_controllers/include/robodyn_controllers/torque_safety.hpp',
         '  return max_rate * std::min(std::max(elapsed, 0.0), period);',
         '  return max_rate * std::min(std::max(elapsed, 0.0), 10.0 * period);  // DEFECT D5')]),
    'D6': ("ros2_control's own command limiter on the chain", [
        ('robodyn_ros/model/ros2_control_urdf.py',
         "            'enforce_command_limits': False,\n"
         "            'joint_state_broadcaster': {\n"
         "                'type': 'joint_state_broadcaster/JointStateBroadcaster'},\n"
         '            name:',
         "            'enforce_command_limits': True,  # DEFECT D6\n"
         "            'joint_state_broadcaster': {\n"
         "                'type': 'joint_state_broadcaster/JointStateBroadcaster'},\n"
         '            name:')]),
    'D7': ('node path: no copy of the applied effort, the newest message applied', [
        ('robodyn_ros/nodes/controller.py', '        if run.consumer.bypassed:',
         '        if False and run.consumer.bypassed:  # DEFECT D7'),
        ('launch/ros2_control.launch.py',
         "    return {'max_torque_rate': _max_torque_rate(params),",
         "    return {'max_torque_rate': 1e5,  # DEFECT D7")]),
}


def put_back(tree: str, name: str) -> None:
    """Apply defect ``name``'s substitutions in ``tree``; SystemExit when a text is not
    there exactly once (the code moved on: the substitution needs writing again)."""
    for path, text, replacement in DEFECTS[name][1]:
        full = f'{tree}/{path}'
        with open(full, encoding='utf-8') as handle:
            source = handle.read()
        if source.count(text) != 1:
            raise SystemExit(f'{name}: {path} holds the text {text[:50]!r} '
                             f'{source.count(text)} times, expected once')
        with open(full, 'w', encoding='utf-8') as handle:
            handle.write(source.replace(text, replacement))


def main(argv: list[str]) -> int:
    if len(argv) < 2 or any(name not in DEFECTS for name in argv[1:]):
        print(f'usage: put_back_defects.py TREE NAME...; names: {", ".join(DEFECTS)}',
              file=sys.stderr)
        return 2
    for name in argv[1:]:
        put_back(argv[0], name)
        print(f'{name}: {DEFECTS[name][0]}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
