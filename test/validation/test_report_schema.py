"""report.json carries exactly the keys validation.report_schema declares (the typed
schema and the report builder cannot drift apart)."""

import json

from robodyn_ros.io.synthetic_bags import write_tracking_bag
from robodyn_ros.validation.report_schema import (
    SCHEMA_VERSION,
    JointTracking,
    OverallTracking,
    ReportTopics,
    ValidationReport,
)
from robodyn_ros.validation.validate import validate_bag


def _keys_match(document, schema):
    keys = set(document)
    required, optional = set(schema.__required_keys__), set(schema.__optional_keys__)
    return required <= keys <= required | optional, sorted((keys - required - optional)
                                                           | (required - keys))


def test_written_report_matches_the_typed_schema(tmp_path):
    bag = str(tmp_path / 'bag')
    write_tracking_bag(bag, duration=1.0)
    validate_bag(bag, out_dir=str(tmp_path / 'out'), plots=False, max_rms=1e-3)
    report = json.load(open(tmp_path / 'out' / 'report.json'))
    assert report['schema_version'] == SCHEMA_VERSION
    assert _keys_match(report, ValidationReport)[0], _keys_match(report, ValidationReport)
    assert _keys_match(report['topics'], ReportTopics)[0]
    assert _keys_match(report['overall'], OverallTracking)[0]
    for stats in report['joints'].values():
        assert _keys_match(stats, JointTracking)[0], _keys_match(stats, JointTracking)
        assert set(stats['thresholds']) == {'max_rms', 'max_abs'}
    assert isinstance(report['passed'], bool) and isinstance(report['failures'], list)
