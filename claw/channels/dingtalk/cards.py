"""DingTalk interactive (AI) cards as the streaming preview of a reply, when `cardTemplateId` is configured.

The preview is created and delivered in one call (`POST /v1.0/card/instances/createAndDeliver`, into the
single chat's or the group's open space); its `outTrackId` is the message id the streamer and the outbox
edit. A preview's text (it ends with the streamer's cursor) is streamed in full into the template's
Markdown variable (`PUT /v1.0/card/streaming`); the final text is streamed with `isFinalize` and the
card's `flowStatus` set to finished (`PUT /v1.0/card/instances`), which the standard AI card template
shows as done. Needs the app's `Card.Instance.Write` and `Card.Streaming.Write` permissions.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from typing import Any

from claw.channels.dingtalk.api import DingTalkApi

CARD_INPUTTING, CARD_FINISHED = "2", "3"
"""The AI card template's `flowStatus` values (a custom template without the variable ignores them)."""


class DingTalkCards:
    def __init__(self, api: DingTalkApi, template_id: str, content_key: str, robot_code: str) -> None:
        self._api = api
        self._template = template_id
        self._key = content_key
        self._robot = robot_code

    async def create(self, reply_to: Mapping[str, Any], text: str, key: str) -> str:
        """A card showing `text` in the reply's chat; its `outTrackId` (derived from `key`, unique per run)."""
        track = "claw-" + hashlib.sha256(key.encode()).hexdigest()[:40]
        body: dict[str, Any] = {
            "cardTemplateId": self._template,
            "outTrackId": track,
            "cardData": {"cardParamMap": {self._key: text, "flowStatus": CARD_INPUTTING}},
            "userIdType": 1,
            "imRobotOpenSpaceModel": {"supportForward": True},
            "imGroupOpenSpaceModel": {"supportForward": True},
        }
        if reply_to.get("direct"):
            body["openSpaceId"] = f"dtv1.card//IM_ROBOT.{reply_to['staff_id']}"
            body["imRobotOpenDeliverModel"] = {"spaceType": "IM_ROBOT"}
        else:
            body["openSpaceId"] = f"dtv1.card//IM_GROUP.{reply_to['conversation_id']}"
            body["imGroupOpenDeliverModel"] = {"robotCode": self._robot}
        await self._api.call("v1.0/card/instances/createAndDeliver", body)
        return track

    async def show(self, track: str, text: str, *, final: bool) -> None:
        """The card's whole content becomes `text`; `final` (the outbox's whole reply) also closes the card."""
        frame = {"outTrackId": track, "guid": uuid.uuid4().hex, "key": self._key, "content": text, "isFull": True,
                 "isFinalize": final, "isError": False}  # fmt: skip
        await self._api.call("v1.0/card/streaming", frame, method="PUT")
        if final:
            params = {self._key: text, "flowStatus": CARD_FINISHED}
            await self._api.call("v1.0/card/instances", {"outTrackId": track, "cardData": {"cardParamMap": params}},
                                 method="PUT")  # fmt: skip
