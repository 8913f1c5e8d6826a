"""Project keys of workspaces: remote URLs in their many forms, checkouts, worktrees, paths."""

from __future__ import annotations

import pytest

from continuity_client.workspace import normalize_remote, project_key_for, project_key_of
from tests.client.helpers import git_checkout


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("git@github.com:acme/shop.git", "github:acme/shop"),
        ("git@github.com:Acme/Shop.git", "github:acme/shop"),
        ("https://github.com/acme/shop", "github:acme/shop"),
        ("https://github.com/acme/shop.git", "github:acme/shop"),
        ("https://github.com/acme/shop/", "github:acme/shop"),
        ("http://github.com/acme/shop.git/", "github:acme/shop"),
        ("https://user:secret@github.com/acme/shop.git", "github:acme/shop"),
        ("ssh://git@github.com/acme/shop.git", "github:acme/shop"),
        ("ssh://git@github.com:22/acme/shop.git", "github:acme/shop"),
        ("git://github.com/acme/shop.git", "github:acme/shop"),
        ("github.com:acme/shop", "github:acme/shop"),
        ("  git@github.com:acme/shop.git\n", "github:acme/shop"),
        ("git@gitlab.com:group/sub/app.git", "gitlab:group/sub/app"),
        ("https://gitlab.com/Group/App", "gitlab:group/app"),
        ("git@bitbucket.org:team/repo.git", "bitbucket:team/repo"),
        ("https://git.example.org/Team/App.git", "git.example.org:Team/App"),
        ("ssh://git@host.example:2222/~user/repo.git", "host.example:user/repo"),
        ("https://gitee.com/团队/项目.git", "gitee.com:团队/项目"),
    ],
)
def test_remote_urls_normalise_to_host_owner_repo(url, key):
    assert normalize_remote(url) == key


@pytest.mark.parametrize(
    "url",
    [
        "",
        "/home/ada/shop",
        "file:///srv/git/shop.git",
        "C:\\code\\shop",
        "https://github.com/",
        "shop",
    ],
)
def test_local_paths_and_non_remotes_are_not_remotes(url):
    assert normalize_remote(url) is None


def test_two_clones_of_one_repository_share_a_project_key(tmp_path):
    ssh = git_checkout(tmp_path / "a" / "shop", "git@github.com:acme/shop.git")
    https = git_checkout(tmp_path / "b" / "shop-copy", "https://github.com/Acme/shop")
    (https / "src" / "deep").mkdir(parents=True)

    assert project_key_for(ssh) == project_key_for(https / "src" / "deep") == "github:acme/shop"


def test_a_worktree_follows_its_gitdir_file_to_the_main_config(tmp_path):
    main = git_checkout(tmp_path / "shop", "git@github.com:acme/shop.git")
    worktree_git = main / ".git" / "worktrees" / "feature"
    worktree_git.mkdir(parents=True)
    (worktree_git / "commondir").write_text("../..\n")
    worktree = tmp_path / "shop-feature"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {worktree_git}\n")

    assert project_key_for(worktree) == "github:acme/shop"


def test_a_checkout_without_a_remote_falls_back_to_its_root_path(tmp_path):
    root = git_checkout(tmp_path / "notes", None)
    (root / "sub").mkdir()

    assert project_key_for(root / "sub") == str(root)


def test_a_folder_outside_git_is_its_absolute_path(tmp_path):
    assert project_key_for(tmp_path) == str(tmp_path)


def test_origin_wins_over_other_remotes(tmp_path):
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text(
        '[remote "upstream"]\n\turl = git@github.com:other/shop.git\n[remote "origin"]\n\turl = git@github.com:acme/shop.git\n'
    )

    assert project_key_for(root) == "github:acme/shop"


def test_the_server_keeps_a_path_workspace_without_reading_its_files(tmp_path):
    git_checkout(tmp_path / "shop", "git@github.com:acme/shop.git")

    assert project_key_of(str(tmp_path / "shop" / "..") + "/shop") == str(tmp_path / "shop")
    assert project_key_of("https://github.com/acme/shop.git") == "github:acme/shop"
