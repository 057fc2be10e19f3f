"""What the launch files start: their arguments checked, the descriptions written and the
actions made (the ``launch`` library; no rclpy). launch/*.launch.py declare the arguments a
user gives and call these."""
