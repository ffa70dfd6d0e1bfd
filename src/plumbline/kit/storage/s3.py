"""S3 backend (AWS or any S3-compatible store) with real presigned URLs.

File bytes never pass through the app on upload or download. Credentials come from the
standard AWS variables.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from plumbline.errors import PayloadTooLarge
from plumbline.kit import clock
from plumbline.kit.storage.base import CHUNK, PresignedPut, check_key, content_disposition

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import CompletedPartTypeDef, ObjectIdentifierTypeDef

_MISSING = {"404", "NoSuchKey", "NotFound"}
PART = 8 * 1024 * 1024  # S3 parts are at least 5 MiB, except the last


class S3Storage:
    name = "s3"

    def __init__(self, bucket: str, endpoint_url: str | None, region: str) -> None:
        self.bucket = bucket
        config = Config(
            signature_version="s3v4",
            s3={"addressing_style": "path" if endpoint_url else "auto"},
            retries={"max_attempts": 3, "mode": "standard"},
        )
        self.client: S3Client = boto3.client(
            "s3", endpoint_url=endpoint_url, region_name=region, config=config
        )

    async def check(self) -> None:
        await asyncio.to_thread(self.client.head_bucket, Bucket=self.bucket)

    async def presign_put(
        self, key: str, *, content_type: str, size: int, expires_in: timedelta
    ) -> PresignedPut:
        url = self.client.generate_presigned_url(
            "put_object",
            Params={"Bucket": self.bucket, "Key": check_key(key), "ContentType": content_type},
            ExpiresIn=int(expires_in.total_seconds()),
            HttpMethod="PUT",
        )
        return PresignedPut(
            url=url,
            method="PUT",
            headers={"Content-Type": content_type},
            expires_at=clock.now() + expires_in,
        )

    async def presign_get(
        self,
        key: str,
        *,
        expires_in: timedelta,
        filename: str | None = None,
        content_type: str | None = None,
    ) -> str:
        params: dict[str, str] = {"Bucket": self.bucket, "Key": check_key(key)}
        if filename:
            params["ResponseContentDisposition"] = content_disposition(filename)
        if content_type:
            params["ResponseContentType"] = content_type
        return self.client.generate_presigned_url(
            "get_object", Params=params, ExpiresIn=int(expires_in.total_seconds())
        )

    async def head(self, key: str) -> int | None:
        try:
            found = await asyncio.to_thread(
                self.client.head_object, Bucket=self.bucket, Key=check_key(key)
            )
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code")) in _MISSING:
                return None
            raise
        return int(found["ContentLength"])

    async def sha256(self, key: str) -> str | None:
        def digest() -> str | None:
            try:
                body = self.client.get_object(Bucket=self.bucket, Key=check_key(key))["Body"]
            except ClientError as exc:
                if str(exc.response.get("Error", {}).get("Code")) in _MISSING:
                    return None
                raise
            hasher = hashlib.sha256()
            try:
                while chunk := body.read(CHUNK):
                    hasher.update(chunk)
            finally:
                body.close()
            return hasher.hexdigest()

        return await asyncio.to_thread(digest)

    async def open_range(self, key: str, start: int, end: int) -> AsyncIterator[bytes]:
        found = await asyncio.to_thread(
            self.client.get_object,
            Bucket=self.bucket,
            Key=check_key(key),
            Range=f"bytes={start}-{end}",
        )
        body = found["Body"]
        try:
            while chunk := await asyncio.to_thread(body.read, CHUNK):
                yield chunk
        finally:
            await asyncio.to_thread(body.close)

    async def put_bytes(self, key: str, data: bytes, content_type: str) -> None:
        await asyncio.to_thread(
            self.client.put_object,
            Bucket=self.bucket,
            Key=check_key(key),
            Body=data,
            ContentType=content_type,
        )

    async def put_stream(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str, max_size: int
    ) -> int:
        """A multipart upload in parts of ``PART`` bytes (one PUT when smaller), aborted on any
        failure so no parts are left behind; memory holds one part at most."""
        key = check_key(key)
        buffer = bytearray()
        received = 0
        upload_id: str | None = None
        parts: list[CompletedPartTypeDef] = []

        async def send_part() -> None:
            nonlocal upload_id
            if upload_id is None:
                created = await asyncio.to_thread(
                    self.client.create_multipart_upload,
                    Bucket=self.bucket,
                    Key=key,
                    ContentType=content_type,
                )
                upload_id = created["UploadId"]
            number = len(parts) + 1
            sent = await asyncio.to_thread(
                self.client.upload_part,
                Bucket=self.bucket,
                Key=key,
                UploadId=upload_id,
                PartNumber=number,
                Body=bytes(buffer),
            )
            parts.append({"ETag": sent["ETag"], "PartNumber": number})
            buffer.clear()

        try:
            async for chunk in chunks:
                received += len(chunk)
                if received > max_size:
                    raise PayloadTooLarge("More bytes than the file declared")
                buffer.extend(chunk)
                if len(buffer) >= PART:
                    await send_part()
            if upload_id is None:
                await self.put_bytes(key, bytes(buffer), content_type)
                return received
            if buffer:
                await send_part()
            await asyncio.to_thread(
                self.client.complete_multipart_upload,
                Bucket=self.bucket,
                Key=key,
                UploadId=upload_id,
                MultipartUpload={"Parts": parts},
            )
        except BaseException:
            if upload_id is not None:
                await asyncio.to_thread(
                    self.client.abort_multipart_upload,
                    Bucket=self.bucket,
                    Key=key,
                    UploadId=upload_id,
                )
            raise
        return received

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self.client.delete_object, Bucket=self.bucket, Key=check_key(key))

    async def delete_prefix(self, prefix: str) -> int:
        """Delete every object under ``prefix/``, 1,000 keys per request."""
        prefix = check_key(prefix.rstrip("/")) + "/"

        def remove() -> int:
            count = 0
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                keys: list[ObjectIdentifierTypeDef] = [
                    {"Key": item["Key"]} for item in page.get("Contents", [])
                ]
                if keys:
                    self.client.delete_objects(
                        Bucket=self.bucket, Delete={"Objects": keys, "Quiet": True}
                    )
                    count += len(keys)
            return count

        return await asyncio.to_thread(remove)
