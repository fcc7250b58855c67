package lexicon

// phrasebook holds the stand-in's own sentence frames in the lexicon's
// other languages, by the English frame a policy writes (prose.say). A
// frame it lacks stays English, as a weak model's translation does; the
// values a frame carries (tool results, names, numbers) are never
// translated.
var phrasebook = map[string]map[string]string{
	closing: {
		"es": "Dime si puedo ayudarte en algo más.",
		"fr": "Dites-moi si je peux vous aider pour autre chose.",
		"zh": "如果還有其他需要幫忙的地方，請告訴我。",
	},
	// The CBA assistant's frames (cba.go).
	"I have %d tools: %s.": {
		"es": "Tengo %d herramientas: %s.",
		"fr": "J'ai %d outils : %s.",
		"zh": "我有 %d 個工具：%s。",
	},
	"I have %d tools for weather and climate normals, soil properties and soil carbon, and the CBA indicator knowledge base (indicator search, details, feasible methods, comparisons and reports).": {
		"es": "Tengo %d herramientas para el tiempo y las normales climáticas, las propiedades y el carbono del suelo, y la base de indicadores CBA (búsqueda, detalles, métodos factibles, comparaciones e informes).",
		"fr": "J'ai %d outils pour la météo et les normales climatiques, les propriétés et le carbone des sols, et la base d'indicateurs CBA (recherche, détails, méthodes réalisables, comparaisons et rapports).",
		"zh": "我有 %d 個工具，涵蓋天氣與氣候平均值、土壤性質與土壤碳，以及 CBA 指標知識庫（指標搜尋、詳情、可行方法、比較與報告）。",
	},
	"I chose the data source that fits your question and called it.": {
		"es": "Elegí la fuente de datos que corresponde a tu pregunta y la consulté.",
		"fr": "J'ai choisi la source de données adaptée à votre question et je l'ai interrogée.",
		"zh": "我選擇了符合您問題的資料來源並查詢了它。",
	},
	"I called %s to see my tools and %s to read the right one's documentation, then called it.": {
		"es": "Llamé a %s para ver mis herramientas y a %s para leer la documentación de la adecuada, y luego la llamé.",
		"fr": "J'ai appelé %s pour voir mes outils et %s pour lire la documentation du bon outil, puis je l'ai appelé.",
		"zh": "我呼叫了 %s 查看我的工具，並用 %s 閱讀合適工具的說明，然後呼叫了它。",
	},
	"%s to choose the right data source, then called it.": {
		"es": "%s para elegir la fuente de datos adecuada, y luego la consulté.",
		"fr": "%s pour choisir la bonne source de données, puis je l'ai interrogée.",
		"zh": "%s，以選擇合適的資料來源，然後查詢了它。",
	},
	"I could not get that: %s": {
		"es": "No pude obtener eso: %s",
		"fr": "Je n'ai pas pu l'obtenir : %s",
		"zh": "我無法取得這項資料：%s",
	},
	"Here is what I found:\n%s": {
		"es": "Esto es lo que encontré:\n%s",
		"fr": "Voici ce que j'ai trouvé :\n%s",
		"zh": "以下是我找到的資料：\n%s",
	},
	"I can help with weather, climate normals, soil and the CBA monitoring indicators. What place or indicator do you have in mind?": {
		"es": "Puedo ayudarte con el tiempo, las normales climáticas, el suelo y los indicadores de seguimiento CBA. ¿En qué lugar o indicador piensas?",
		"fr": "Je peux vous aider pour la météo, les normales climatiques, les sols et les indicateurs de suivi CBA. À quel lieu ou indicateur pensez-vous ?",
		"zh": "我可以協助查詢天氣、氣候平均值、土壤以及 CBA 監測指標。您想了解哪個地點或指標？",
	},
	"I cannot look that up with the tools I have.": {
		"es": "No puedo consultar eso con las herramientas que tengo.",
		"fr": "Je ne peux pas le rechercher avec les outils dont je dispose.",
		"zh": "我現有的工具無法查詢這項資料。",
	},
	// The Climate Advisor's, the family policies' and the Kura synthesizer's
	// frames. A sentence built from parts (a listing, a weather line) has
	// each part here: the frame and the fragments it takes, so the words
	// are the phrasebook's and the values stay data.
	"%s (%s, %d) is a %s inventory; its emissions total %s, using %s GWP values.": {
		"es": "%s (%s, %d) es un inventario %s; sus emisiones suman %s, con valores de PCG %s.",
		"fr": "%s (%s, %d) est un inventaire %s ; ses émissions totalisent %s, avec les valeurs de PRG %s.",
		"zh": "%s（%s，%d）是 %s 清冊；排放總量為 %s，採用 %s 的暖化潛勢值。",
	},
	"According to the internal climate knowledge base (%s): %s": {
		"es": "Según la base de conocimiento climático interna (%s): %s",
		"fr": "Selon la base de connaissances climatiques interne (%s) : %s",
		"zh": "根據內部氣候知識庫（%s）：%s",
	},
	"I can help you find and understand your CityCatalyst inventories, their data sources, and climate questions such as GPC scopes or emission factors.": {
		"es": "Puedo ayudarte a encontrar y entender tus inventarios de CityCatalyst, sus fuentes de datos y preguntas climáticas como los alcances del GPC o los factores de emisión.",
		"fr": "Je peux vous aider à trouver et comprendre vos inventaires CityCatalyst, leurs sources de données et les questions climatiques comme les périmètres GPC ou les facteurs d'émission.",
		"zh": "我可以協助您查找並理解您的 CityCatalyst 清冊、其資料來源，以及 GPC 範疇或排放係數等氣候問題。",
	},
	"I could not find this in the internal climate knowledge base, so I will not answer from memory.": {
		"es": "No encontré esto en la base de conocimiento climático interna, así que no responderé de memoria.",
		"fr": "Je ne l'ai pas trouvé dans la base de connaissances climatiques interne, je ne répondrai donc pas de mémoire.",
		"zh": "我在內部氣候知識庫中找不到這項資料，因此不會憑記憶回答。",
	},
	"I could not get that from CityCatalyst: %s. I will not guess the data; please try again later.": {
		"es": "No pude obtener eso de CityCatalyst: %s. No adivinaré los datos; inténtalo de nuevo más tarde.",
		"fr": "Je n'ai pas pu l'obtenir de CityCatalyst : %s. Je ne devinerai pas les données ; réessayez plus tard.",
		"zh": "我無法從 CityCatalyst 取得這項資料：%s。我不會猜測資料，請稍後再試。",
	},
	"In CityCatalyst you do this from the inventory's page: open the inventory, then use the menu for the step you need. This is a product question, so I have not searched the climate knowledge base.": {
		"es": "En CityCatalyst esto se hace desde la página del inventario: abre el inventario y usa el menú del paso que necesitas. Es una pregunta sobre el producto, así que no busqué en la base de conocimiento climático.",
		"fr": "Dans CityCatalyst, cela se fait depuis la page de l'inventaire : ouvrez l'inventaire, puis utilisez le menu de l'étape voulue. C'est une question sur le produit, je n'ai donc pas cherché dans la base de connaissances climatiques.",
		"zh": "在 CityCatalyst 中，請在清冊頁面操作：開啟清冊，再使用所需步驟的選單。這是產品問題，因此我沒有搜尋氣候知識庫。",
	},
	"The %s tool returned something I could not read, so I cannot answer from it.": {
		"es": "La herramienta %s devolvió algo que no pude leer, así que no puedo responder con ello.",
		"fr": "L'outil %s a renvoyé quelque chose que je n'ai pas pu lire, je ne peux donc pas répondre à partir de cela.",
		"zh": "工具 %s 回傳了我無法讀取的內容，因此無法據此回答。",
	},
	"There are %d data sources available for this inventory, including %s.": {
		"es": "Hay %d fuentes de datos disponibles para este inventario, entre ellas %s.",
		"fr": "Il y a %d sources de données disponibles pour cet inventaire, dont %s.",
		"zh": "此清冊有 %d 個可用的資料來源，包括 %s。",
	},
	"There are no data sources available for this inventory.": {
		"es": "No hay fuentes de datos disponibles para este inventario.",
		"fr": "Aucune source de données n'est disponible pour cet inventaire.",
		"zh": "此清冊沒有可用的資料來源。",
	},
	"You have no inventories yet.": {
		"es": "Todavía no tienes inventarios.",
		"fr": "Vous n'avez encore aucun inventaire.",
		"zh": "您目前還沒有任何清冊。",
	},
	"I can chart and query your Home Assistant sensors and your attachments. Which sensor and period do you mean?": {
		"es": "Puedo graficar y consultar tus sensores de Home Assistant y tus adjuntos. ¿Qué sensor y qué período quieres?",
		"fr": "Je peux tracer et interroger vos capteurs Home Assistant et vos pièces jointes. Quel capteur et quelle période voulez-vous ?",
		"zh": "我可以為您的 Home Assistant 感測器和附件繪圖與查詢。您指的是哪個感測器和時段？",
	},
	"I cannot access the attachment's content, so I cannot build a chart from it.": {
		"es": "No puedo acceder al contenido del adjunto, así que no puedo hacer un gráfico con él.",
		"fr": "Je ne peux pas accéder au contenu de la pièce jointe, je ne peux donc pas en faire un graphique.",
		"zh": "我無法存取附件的內容，因此無法據此繪圖。",
	},
	"I cannot read the attachment's content, so I cannot summarize it.": {
		"es": "No puedo leer el contenido del adjunto, así que no puedo resumirlo.",
		"fr": "Je ne peux pas lire le contenu de la pièce jointe, je ne peux donc pas le résumer.",
		"zh": "我無法讀取附件的內容，因此無法摘要。",
	},
	"I cannot read the attachment's content, so I cannot count its rows.": {
		"es": "No puedo leer el contenido del adjunto, así que no puedo contar sus filas.",
		"fr": "Je ne peux pas lire le contenu de la pièce jointe, je ne peux donc pas en compter les lignes.",
		"zh": "我無法讀取附件的內容，因此無法計算列數。",
	},
	"The attached file has %s rows.": {
		"es": "El archivo adjunto tiene %s filas.",
		"fr": "Le fichier joint a %s lignes.",
		"zh": "附件共有 %s 列。",
	},
	"The attached file has %d rows.": {
		"es": "El archivo adjunto tiene %d filas.",
		"fr": "Le fichier joint a %d lignes.",
		"zh": "附件共有 %d 列。",
	},
	"I cannot tell how many rows the attachment has.": {
		"es": "No puedo saber cuántas filas tiene el adjunto.",
		"fr": "Je ne peux pas dire combien de lignes a la pièce jointe.",
		"zh": "我無法判斷附件有多少列。",
	},
	"I could not download the history: %s": {
		"es": "No pude descargar el historial: %s",
		"fr": "Je n'ai pas pu télécharger l'historique : %s",
		"zh": "我無法下載歷史紀錄：%s",
	},
	"I could not find records with a time and a number in the attachment, so I cannot chart it.": {
		"es": "No encontré registros con una hora y un número en el adjunto, así que no puedo graficarlo.",
		"fr": "Je n'ai pas trouvé d'enregistrements avec une heure et un nombre dans la pièce jointe, je ne peux donc pas la tracer.",
		"zh": "我在附件中找不到含時間與數值的紀錄，因此無法繪圖。",
	},
	"I could not make the chart. %s": {
		"es": "No pude hacer el gráfico. %s",
		"fr": "Je n'ai pas pu faire le graphique. %s",
		"zh": "我無法製作圖表。%s",
	},
	"I could not query the attachment: %s": {
		"es": "No pude consultar el adjunto: %s",
		"fr": "Je n'ai pas pu interroger la pièce jointe : %s",
		"zh": "我無法查詢附件：%s",
	},
	"I do not know the entity ids of all your sensors. Which sensors do you mean (for example sensor.pool_temperature)?": {
		"es": "No conozco los identificadores de todos tus sensores. ¿Qué sensores quieres (por ejemplo sensor.pool_temperature)?",
		"fr": "Je ne connais pas les identifiants de tous vos capteurs. Quels capteurs voulez-vous (par exemple sensor.pool_temperature) ?",
		"zh": "我不知道您所有感測器的實體 ID。您指的是哪些感測器（例如 sensor.pool_temperature）？",
	},
	"No attachment was given, so there is nothing to chart.": {
		"es": "No se dio ningún adjunto, así que no hay nada que graficar.",
		"fr": "Aucune pièce jointe n'a été donnée, il n'y a donc rien à tracer.",
		"zh": "沒有提供附件，因此沒有可繪製的內容。",
	},
	"The answer is %s.": {
		"es": "La respuesta es %s.",
		"fr": "La réponse est %s.",
		"zh": "答案是 %s。",
	},
	"The attached file is shown above in full.": {
		"es": "El archivo adjunto se muestra completo arriba.",
		"fr": "Le fichier joint est affiché en entier ci-dessus.",
		"zh": "附件已完整顯示於上方。",
	},
	"The attachment is not data I can read as records, so I cannot chart it.": {
		"es": "El adjunto no son datos que pueda leer como registros, así que no puedo graficarlo.",
		"fr": "La pièce jointe n'est pas une donnée que je peux lire comme des enregistrements, je ne peux donc pas la tracer.",
		"zh": "附件不是我能讀成紀錄的資料，因此無法繪圖。",
	},
	"The chart failed: %s": {
		"es": "El gráfico falló: %s",
		"fr": "Le graphique a échoué : %s",
		"zh": "圖表失敗：%s",
	},
	"The history tool answered: %s": {
		"es": "La herramienta de historial respondió: %s",
		"fr": "L'outil d'historique a répondu : %s",
		"zh": "歷史工具回覆：%s",
	},
	"The result is too large to show here, so I saved it as attachment %s.": {
		"es": "El resultado es demasiado grande para mostrarlo aquí, así que lo guardé como el adjunto %s.",
		"fr": "Le résultat est trop volumineux pour être affiché ici, je l'ai donc enregistré comme pièce jointe %s.",
		"zh": "結果太大無法在此顯示，因此我將它存為附件 %s。",
	},
	"There is no recorded history for that sensor in that period: %s": {
		"es": "No hay historial registrado de ese sensor en ese período: %s",
		"fr": "Il n'y a pas d'historique enregistré pour ce capteur sur cette période : %s",
		"zh": "該感測器在該時段沒有紀錄：%s",
	},
	"%s matches several places; which one do you mean?": {
		"es": "%s coincide con varios lugares; ¿cuál quieres decir?",
		"fr": "%s correspond à plusieurs lieux ; lequel voulez-vous dire ?",
		"zh": "%s 符合多個地點；您指的是哪一個？",
	},
	"Hello! How can I help you today?": {
		"es": "¡Hola! ¿En qué puedo ayudarte hoy?",
		"fr": "Bonjour ! Comment puis-je vous aider aujourd'hui ?",
		"zh": "您好！今天需要什麼協助嗎？",
	},
	"I couldn't complete that: %s.": {
		"es": "No pude completar eso: %s.",
		"fr": "Je n'ai pas pu le faire : %s.",
		"zh": "我無法完成：%s。",
	},
	"I couldn't complete the %s lookup: %s.": {
		"es": "No pude completar la consulta %s: %s.",
		"fr": "Je n'ai pas pu terminer la recherche %s : %s.",
		"zh": "我無法完成 %s 查詢：%s。",
	},
	"I couldn't find %s.": {
		"es": "No encontré %s.",
		"fr": "Je n'ai pas trouvé %s.",
		"zh": "我找不到 %s。",
	},
	"I couldn't find a street address for where you are.": {
		"es": "No encontré una dirección para donde estás.",
		"fr": "Je n'ai pas trouvé d'adresse pour l'endroit où vous êtes.",
		"zh": "我找不到您所在位置的街道地址。",
	},
	"I couldn't find any matching places nearby.": {
		"es": "No encontré lugares que coincidan cerca.",
		"fr": "Je n'ai trouvé aucun lieu correspondant à proximité.",
		"zh": "附近找不到符合的地點。",
	},
	"Nearby: %s.": {
		"es": "Cerca: %s.",
		"fr": "À proximité : %s.",
		"zh": "附近：%s。",
	},
	"The trip takes about %d minutes.": {
		"es": "El viaje dura unos %d minutos.",
		"fr": "Le trajet dure environ %d minutes.",
		"zh": "行程約需 %d 分鐘。",
	},
	"Which %s do you mean: %s or %s?": {
		"es": "¿Qué %s quieres decir: %s o %s?",
		"fr": "Quel %s voulez-vous dire : %s ou %s ?",
		"zh": "您指的是哪個 %s：%s 還是 %s？",
	},
	"You're at %s.": {
		"es": "Estás en %s.",
		"fr": "Vous êtes à %s.",
		"zh": "您在 %s。",
	},
	// The Climate Advisor's listing of inventories and its other sentences
	// built from parts (climate_results.go, tonnes).
	"I found no inventories for %q in your account.": {
		"es": "No encontré inventarios para %q en tu cuenta.",
		"fr": "Je n'ai trouvé aucun inventaire pour %q dans votre compte.",
		"zh": "您的帳戶中找不到 %q 的清冊。",
	},
	"I found no inventories for %q in %d in your account.": {
		"es": "No encontré inventarios para %q del año %d en tu cuenta.",
		"fr": "Je n'ai trouvé aucun inventaire pour %q en %d dans votre compte.",
		"zh": "您的帳戶中找不到 %q 在 %d 年的清冊。",
	},
	"I found %d inventories:": {
		"es": "Encontré %d inventarios:",
		"fr": "J'ai trouvé %d inventaires :",
		"zh": "我找到 %d 個清冊：",
	},
	"- %s %d: %s, %s (ID %s)": {
		"es": "- %s %d: %s, %s (ID %s)",
		"fr": "- %s %d : %s, %s (ID %s)",
		"zh": "- %s %d：%s，%s（ID %s）",
	},
	"Which one should I open?": {
		"es": "¿Cuál debo abrir?",
		"fr": "Lequel dois-je ouvrir ?",
		"zh": "要開啟哪一個？",
	},
	"%.1f million tCO2e": {
		"es": "%.1f millones de tCO2e",
		"fr": "%.1f millions de tCO2e",
		"zh": "%.1f 百萬 tCO2e",
	},
	"no total emissions recorded": {
		"es": "ningún total de emisiones registrado",
		"fr": "aucun total d'émissions enregistré",
		"zh": "未記錄排放總量",
	},
	"Done.": {
		"es": "Listo.",
		"fr": "C'est fait.",
		"zh": "完成。",
	},
	// The Kura synthesizer's weather line (a frame by where, with its
	// summary and felt-temperature fragments), its transit line (with the
	// departure fragment) and the greeting a reply rule prescribes.
	"In %s it's %s%s.": {
		"es": "En %s hace %s%s.",
		"fr": "À %s, il fait %s%s.",
		"zh": "%s現在 %s%s。",
	},
	"Where you are it's %s%s.": {
		"es": "Donde estás hace %s%s.",
		"fr": "Là où vous êtes, il fait %s%s.",
		"zh": "您所在的位置現在 %s%s。",
	},
	" and %s": {
		"es": " y %s",
		"fr": " et %s",
		"zh": "，%s",
	},
	", feels like %s": {
		"es": ", con sensación térmica de %s",
		"fr": ", ressenti %s",
		"zh": "，體感 %s",
	},
	"Take the %s from %s%s and arrive at %s about %d minutes later.": {
		"es": "Toma el %s desde %s%s y llegarás a %s unos %d minutos después.",
		"fr": "Prenez le %s depuis %s%s et vous arriverez à %s environ %d minutes plus tard.",
		"zh": "從 %[2]s%[3]s 搭乘 %[1]s，約 %[5]d 分鐘後抵達 %[4]s。",
	},
	" at %s": {
		"es": " a las %s",
		"fr": " à %s",
		"zh": "（%s 出發）",
	},
	"Hi there, happy to help with %s!": {
		"es": "¡Hola, con gusto te ayudo con %s!",
		"fr": "Bonjour, je vous aide volontiers pour %s !",
		"zh": "您好，很樂意協助您處理%s！",
	},
	"Hi there, happy to help!": {
		"es": "¡Hola, con gusto te ayudo!",
		"fr": "Bonjour, je vous aide volontiers !",
		"zh": "您好，很樂意協助您！",
	},
	// The Kura executor's snippets (kura_executor.go, kura_results.go); the
	// error messages it records for the synthesizer stay English: the
	// synthesizer reads them as data.
	"The %s step failed: %s.": {
		"es": "El paso %s falló: %s.",
		"fr": "L'étape %s a échoué : %s.",
		"zh": "步驟 %s 失敗：%s。",
	},
	"'%s' matches %d places.": {
		"es": "'%s' coincide con %d lugares.",
		"fr": "'%s' correspond à %d lieux.",
		"zh": "「%s」符合 %d 個地點。",
	},
	"Found %s.": {
		"es": "Encontré %s.",
		"fr": "Trouvé : %s.",
		"zh": "找到 %s。",
	},
	"Located you to within %s meters.": {
		"es": "Te ubiqué con un margen de %s metros.",
		"fr": "Vous êtes localisé à %s mètres près.",
		"zh": "已定位您的位置，誤差 %s 公尺內。",
	},
	"You are at %s.": {
		"es": "Estás en %s.",
		"fr": "Vous êtes à %s.",
		"zh": "您在 %s。",
	},
	"Found %d places for %s.": {
		"es": "Encontré %d lugares para %s.",
		"fr": "%d lieux trouvés pour %s.",
		"zh": "找到 %d 個符合 %s 的地點。",
	},
	"It is %s in %s.": {
		"es": "Hace %s en %s.",
		"fr": "Il fait %s à %s.",
		"zh": "%[2]s現在 %[1]s。",
	},
	"It is %s and %s in %s.": {
		"es": "Hace %s y %s en %s.",
		"fr": "Il fait %s et %s à %s.",
		"zh": "%[3]s現在 %[1]s，%[2]s。",
	},
	"The only route found takes %d minutes without transit.": {
		"es": "La única ruta encontrada dura %d minutos sin transporte público.",
		"fr": "Le seul itinéraire trouvé dure %d minutes sans transports en commun.",
		"zh": "唯一找到的路線不搭大眾運輸，需 %d 分鐘。",
	},
	"The %s goes from %s to %s in about %d minutes.": {
		"es": "El %s va de %s a %s en unos %d minutos.",
		"fr": "Le %s va de %s à %s en environ %d minutes.",
		"zh": "%[1]s 從 %[2]s 到 %[3]s 約需 %[4]d 分鐘。",
	},
	// The generic policy's frames (harness/standin/generic): a tool's result
	// quoted, a failure, and the plain answers.
	"%s returned nothing.": {
		"es": "%s no devolvió nada.",
		"fr": "%s n'a rien renvoyé.",
		"zh": "%s 沒有回傳任何內容。",
	},
	"%s failed: %s": {
		"es": "%s falló: %s",
		"fr": "%s a échoué : %s",
		"zh": "%s 失敗：%s",
	},
	"From %s: %s": {
		"es": "Según %s: %s",
		"fr": "D'après %s : %s",
		"zh": "來自 %s：%s",
	},
	"%s returned no values.": {
		"es": "%s no devolvió ningún valor.",
		"fr": "%s n'a renvoyé aucune valeur.",
		"zh": "%s 沒有回傳任何值。",
	},
	"From %s: %s.": {
		"es": "Según %s: %s.",
		"fr": "D'après %s : %s.",
		"zh": "來自 %s：%s。",
	},
	"You said: %q. I have no tools, so this is all I can answer.": {
		"es": "Dijiste: %q. No tengo herramientas, así que esto es todo lo que puedo responder.",
		"fr": "Vous avez dit : %q. Je n'ai aucun outil, c'est donc tout ce que je peux répondre.",
		"zh": "您說：%q。我沒有任何工具，所以只能回答這些。",
	},
	"I did not need a tool for that.": {
		"es": "No necesité ninguna herramienta para eso.",
		"fr": "Je n'ai eu besoin d'aucun outil pour cela.",
		"zh": "這個問題不需要使用工具。",
	},
	"I did not need a tool for that. I can use: %s.": {
		"es": "No necesité ninguna herramienta para eso. Puedo usar: %s.",
		"fr": "Je n'ai eu besoin d'aucun outil pour cela. Je peux utiliser : %s.",
		"zh": "這個問題不需要使用工具。我可以使用：%s。",
	},
}
