"""The owner's memory packages (DRF, under /api/owner/; see docs/packages.md).

GET  packages/export/   the signed-in owner's package, as a .tar.gz download
POST packages/import/   multipart: package=<file>, merge=true|false, dry_run=true|false
                        -> the import report; a refused package answers 400 with every
                           problem in `details`, a non-empty store without merge 409.
"""

from __future__ import annotations

import io

from django.http import HttpResponse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_noop
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from foundation.actors import Actor
from foundation.drf_door import OwnerSessionAuthentication, reject_unknown_params
from foundation.errors import ErrorCode, ServiceError, validation_error
from portability.packages import package_contents, package_import, write_tar

MAX_IMPORT_BYTES = 256 * 1024 * 1024
MAX_EXPANSION = 100
BOOLEAN_WORDS = {
    "true": True,
    "1": True,
    "yes": True,
    "false": False,
    "0": False,
    "no": False,
    "": False,
}


class PackageExportView(APIView):
    authentication_classes = [OwnerSessionAuthentication]

    def get(self, request):
        reject_unknown_params(request, set())
        buffer = io.BytesIO()
        write_tar(package_contents(actor=Actor.owner(request.user)), buffer)
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response = HttpResponse(buffer.getvalue(), content_type="application/gzip")
        response["Content-Disposition"] = (
            f'attachment; filename="continuity-{slugify(request.user.get_username())}-{stamp}.tar.gz"'
        )
        response["Cache-Control"] = "no-store"
        return response


class PackageImportView(APIView):
    authentication_classes = [OwnerSessionAuthentication]
    parser_classes = [MultiPartParser]

    def post(self, request):
        reject_unknown_params(request, set())
        length = int(request.META.get("CONTENT_LENGTH") or 0)
        if length > MAX_IMPORT_BYTES:
            raise ServiceError(
                ErrorCode.PAYLOAD_TOO_LARGE,
                gettext_noop(
                    "The upload is %(size)s bytes; the limit is %(limit)s. Use "
                    "`manage.py import_memories` for larger packages."
                ),
                params={"size": f"{length:,}", "limit": f"{MAX_IMPORT_BYTES:,}"},
            )
        unknown = sorted(set(request.data) - {"package", "merge", "dry_run"})
        if unknown:
            raise ServiceError(
                ErrorCode.VALIDATION_ERROR,
                gettext_noop("Unknown field: %(names)s."),
                [{"field": name, "message": "Unknown field."} for name in unknown],
                params={"names": ", ".join(unknown)},
            )
        upload = request.FILES.get("package")
        if upload is None:
            raise validation_error(
                gettext_noop("Attach the package file as 'package'."), field="package"
            )
        report = package_import(
            actor=Actor.owner(request.user), source=upload,
            merge=_flag(request.data, "merge"), dry_run=_flag(request.data, "dry_run"),
            max_bytes=upload_expansion_cap(upload.size),
        )  # fmt: skip
        return Response(report.as_dict(), status=200 if report.dry_run else 201)


def upload_expansion_cap(compressed_bytes: int) -> int:
    """How much an uploaded package may hold uncompressed: JSONL compresses about tenfold,
    so MAX_EXPANSION times the upload (plus a floor for tiny ones) never refuses a real
    package, and a small archive of a gigabyte of zeros is refused as it is read."""
    return min(MAX_IMPORT_BYTES, compressed_bytes * MAX_EXPANSION + 1024 * 1024)


def _flag(data, name: str) -> bool:
    value = data.get(name, "")
    if isinstance(value, bool):
        return value
    if not isinstance(value, str) or value.strip().lower() not in BOOLEAN_WORDS:
        raise validation_error(
            gettext_noop("%(name)s must be true or false."), field=name, name=name
        )
    return BOOLEAN_WORDS[value.strip().lower()]
