"""The functions that take a callable argument, PHP's own and WordPress's, with the
positions of those arguments: read by the extractor (a variable assigned a function's
name is run when handed to one) and by the linker (a string argument there names a
function).

Invariants a change must keep:
- Keys are lower-case function names without a namespace; positions are 0-based.
- No link module is imported here: the extractor reads this module.
"""

from __future__ import annotations

#: PHP functions that take callables, and which of their (0-based) arguments are callables:
#: a string passed there names a function
BUILTIN_CALLBACKS: dict[str, tuple[int, ...]] = {
    "array_map": (0,),
    "array_filter": (1,),
    "array_walk": (1,),
    "array_walk_recursive": (1,),
    "array_reduce": (1,),
    "usort": (1,),
    "uasort": (1,),
    "uksort": (1,),
    "call_user_func": (0,),
    "call_user_func_array": (0,),
    "forward_static_call": (0,),
    "forward_static_call_array": (0,),
    "is_callable": (0,),
    "function_exists": (0,),
    "set_error_handler": (0,),
    "set_exception_handler": (0,),
    "register_shutdown_function": (0,),
    "register_tick_function": (0,),
    "spl_autoload_register": (0,),
    "ob_start": (0,),
    "header_register_callback": (0,),
    "preg_replace_callback": (1,),
    "mb_ereg_replace_callback": (1,),
    "iterator_apply": (1,),
    "pcntl_signal": (1,),
    "session_set_save_handler": (0, 1, 2, 3, 4, 5, 6, 7),
    "xml_set_element_handler": (1, 2),
    "xml_set_character_data_handler": (1,),
    "xml_set_default_handler": (1,),
    "xml_set_processing_instruction_handler": (1,),
}


#: WordPress functions that take a callback WordPress calls later (0-based positions): a
#: plugin's corpus does not hold them, so without this a page or meta box callback has no
#: reference at all
WP_CALLBACKS: dict[str, tuple[int, ...]] = {
    **dict.fromkeys(
        (
            "add_options_page",
            "add_management_page",
            "add_theme_page",
            "add_plugins_page",
            "add_users_page",
            "add_dashboard_page",
            "add_posts_page",
            "add_media_page",
            "add_links_page",
            "add_pages_page",
            "add_comments_page",
        ),
        (4,),
    ),
    "add_menu_page": (4,),
    "add_submenu_page": (5,),
    "add_meta_box": (2,),
    "add_settings_section": (2,),
    "add_settings_field": (2,),
    "wp_add_dashboard_widget": (2, 3),
    "add_shortcode": (1,),
    "register_activation_hook": (1,),
    "register_deactivation_hook": (1,),
    "register_uninstall_hook": (1,),
    "wp_register_sidebar_widget": (2,),
    "wp_register_widget_control": (2,),
}
