"""Shared test setup: keep DDS on this machine, on a test-only domain."""

import os
import sys

os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', '57')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
