"""Portable memory packages: export one owner's store, import it elsewhere (docs/packages.md)."""

from portability.packages.export import package_contents, package_export, write_tar
from portability.packages.format import FILES, FORMAT, FORMAT_VERSION, MANIFEST
from portability.packages.importer import ImportReport, package_import, records_import

__all__ = [
    "FILES",
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST",
    "ImportReport",
    "package_contents",
    "package_export",
    "package_import",
    "records_import",
    "write_tar",
]
