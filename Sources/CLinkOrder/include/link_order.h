/* CLinkOrder has nothing to call: its one object carries a link entry (see link_order.c). */
