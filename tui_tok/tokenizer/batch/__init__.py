"""The batch symbol merger that BPE and SPM share: merge the distinct words of a text together, then expand the results per word."""
