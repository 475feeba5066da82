"""Learning to rank: data in SVMlight/libsvm text (``qid:`` or LightGBM ``.query`` files)."""

from .svmlight import LtrData, read_svmlight, read_svmlight_files, write_svmlight

__all__ = ["LtrData", "read_svmlight", "read_svmlight_files", "write_svmlight"]
