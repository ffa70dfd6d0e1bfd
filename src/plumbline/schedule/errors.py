from plumbline.errors import Forbidden


class ScheduleHiddenFromClients(
    Forbidden, message="The schedule is not shared with clients on this project"
): ...
